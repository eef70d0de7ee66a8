/**
 * Tools and the process's life: a turn that writes a file through `write_file`; SIGKILL while
 * `run_command` runs (abandoned turn, unknown-outcome result, restart note, a new turn, and the
 * command never run twice); SIGKILL with queued inputs (order and idempotency survive); an actor
 * restart mid-turn; draining with a running turn; graceful shutdown by API and by SIGTERM; one
 * daemon per home; and a daemon with no provider configured, whose turns fail saying how to
 * configure one. Each test starts its own daemon (most of them stop it).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { hang, text, toolCalls } from "../support/fake-provider/reply.js";
import { type DaemonHarness, databaseKinds, userTexts } from "./support/daemon-harness.js";
import {
  contentText,
  entryText,
  eventually,
  messagesOf,
  toolResultText,
  useFakeProvider,
} from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

describe.each(databaseKinds)("tools and recovery ($name)", ({ database }) => {
  const fake = useFakeProvider();

  async function daemon(
    options: { configured?: boolean; env?: Record<string, string>; config?: Record<string, unknown> } = {},
  ): Promise<DaemonHarness> {
    const env = options.env ?? {};
    const config = options.config ?? {};
    return fake.daemon(
      options.configured === false ? { providers: undefined, env, database } : { env, database, config },
    );
  }

  it("runs a tool-using turn: the file is written, history has the call and its result, the model gets the result", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "write_file", args: { path: "out.txt", content: "x" }, id: "call_write_1" }]),
      text("I wrote out.txt."),
    );
    const sessionId = await app.createSession();
    await app.turn(sessionId, "write x to out.txt");

    expect(readFileSync(join(app.workspace, "out.txt"), "utf8")).toBe("x");
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "assistant",
    ]);
    const [, call, result, answer] = history.items;
    expect(call!.tool).toEqual({ name: "write_file", tool_call_id: "call_write_1" });
    expect(call!.content).toEqual([
      { kind: "json", field: "arguments", value: { path: "out.txt", content: "x" } },
    ]);
    expect(result!.tool).toMatchObject({ name: "write_file", tool_call_id: "call_write_1", is_error: false });
    expect(entryText(answer!)).toBe("I wrote out.txt.");

    expect(fake.provider.requests).toHaveLength(2);
    const offered =
      (fake.provider.requests[0]!.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
    expect(offered.map((tool) => tool.function.name)).toContain("write_file");
    // The second request carries the call and its result in Chat Completions shape.
    const messages = messagesOf(fake.provider.requests[1]!);
    const assistant = messages.find((message) => message.role === "assistant");
    expect(assistant?.tool_calls).toEqual([
      {
        id: "call_write_1",
        type: "function",
        function: { name: "write_file", arguments: JSON.stringify({ path: "out.txt", content: "x" }) },
      },
    ]);
    const tool = messages.find((message) => message.role === "tool");
    expect(tool?.tool_call_id).toBe("call_write_1");
    expect(contentText(tool!)).toBe(toolResultText(result));
    expect(messages.indexOf(tool!)).toBeGreaterThan(messages.indexOf(assistant!));
  });

  it("keeps the daemon's home from the agent when the workspace contains it, and refuses a workspace inside it", async () => {
    const app = await daemon();
    const refused = await app.api(`/sessions/${uuidv7()}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.home },
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({
      code: "invalid_request",
      detail: expect.stringContaining("hidden from the agent"),
    });

    const config = readFileSync(join(app.home, "config.json"), "utf8");
    fake.provider.queue(
      toolCalls([
        { name: "read_file", args: { path: "home/daemon.json" }, id: "call_read" },
        {
          name: "edit_file",
          args: { path: "home/config.json", old_text: "fixture-key", new_text: "stolen" },
          id: "call_edit",
        },
        { name: "list_files", args: { path: "." }, id: "call_list" },
        {
          name: "run_command",
          // 2>&1: stdout and stderr are two pipes, read in arrival order.
          args: { command: "cat home/daemon.json home/config.json 2>&1; ls -A home | wc -l" },
          id: "call_cat",
        },
      ]),
      text("I could not read them."),
    );
    // The harness's root holds both the home and the usual workspace.
    const sessionId = await app.createSession({ workspace: app.root });
    await app.turn(sessionId, "show me the daemon's token and keys");

    const results = (await app.history(sessionId)).items.filter((entry) => entry.kind === "tool_result");
    const byCall = Object.fromEntries(
      results.map((entry) => [entry.tool?.tool_call_id, toolResultText(entry)]),
    );
    expect(byCall.call_read).toMatch(/hidden from the agent/);
    expect(byCall.call_edit).toMatch(/hidden from the agent/);
    expect(byCall.call_list).toContain("home/ [hidden]");
    expect(byCall.call_cat).toMatch(/No such file.*No such file.*\n0\n$/s);
    for (const output of Object.values(byCall)) {
      expect(output).not.toContain(app.token);
      expect(output).not.toContain("fixture-key");
    }
    expect(readFileSync(join(app.home, "config.json"), "utf8")).toBe(config);
  });

  it("recovers from SIGKILL in the middle of a tool: abandoned turn, unknown outcome, a note, a new turn, no re-run", async () => {
    const app = await daemon();
    const command = "echo started >> effects.txt; sleep 30";
    fake.provider.queue(toolCalls([{ name: "run_command", args: { command }, id: "call_sleep_1" }]));
    fake.provider.script = () => text("I will check effects.txt before doing anything else.");
    const sessionId = await app.createSession();
    const inputId = uuidv7();
    await app.prompt(sessionId, "record that you started, then wait", inputId);
    const effects = join(app.workspace, "effects.txt");
    await eventually("the command to start", () => (existsSync(effects) ? true : undefined));
    const turnId = (await app.receipt(sessionId, inputId)).turn?.id;

    await app.kill();
    await app.boot();
    await app.idle(sessionId);

    const receipt = await app.receipt(sessionId, inputId);
    expect(receipt.delivery).toBe("committed");
    expect(receipt.turn).toMatchObject({ id: turnId, state: "abandoned" });
    expect(receipt.turn?.ended_at).not.toBeNull();

    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "note",
      "assistant",
    ]);
    const result = history.items[2]!;
    expect(result.tool).toMatchObject({ name: "run_command", tool_call_id: "call_sleep_1", is_error: true });
    expect(toolResultText(result)).toMatch(/outcome is unknown/);
    const note = history.items[3]!;
    expect(entryText(note)).toMatch(/daemon restarted/);
    expect(note.turn_id).toBe(turnId);
    const answer = history.items[4]!;
    expect(answer.turn_id).not.toBe(turnId);

    // A new turn ran: the model was asked again, with the note and the unknown outcome.
    expect(fake.provider.requests).toHaveLength(2);
    const messages = messagesOf(fake.provider.requests[1]!);
    expect(messages.map(contentText).some((content) => content.includes("daemon restarted"))).toBe(true);
    const tool = messages.find((message) => message.role === "tool");
    expect(tool?.tool_call_id).toBe("call_sleep_1");
    expect(contentText(tool!)).toMatch(/outcome is unknown/);

    // The command ran once and only once.
    expect(readFileSync(effects, "utf8")).toBe("started\n");
  });

  interface Snapshot {
    status: { phase: string; run_id: string | null };
    input_order: number;
    pending_approvals: Array<{ call_id: string }>;
  }

  async function snapshot(app: DaemonHarness, sessionId: string): Promise<Snapshot> {
    const response = await app.api(`/sessions/${sessionId}?tail=0`);
    expect(response.status).toBe(200);
    return response.json<Snapshot>();
  }

  /** Interrupt the running turn; SIGKILL the daemon as soon as the 200 is in; start it again. */
  async function interruptThenKill(app: DaemonHarness, sessionId: string, turnId: string): Promise<void> {
    const current = await snapshot(app, sessionId);
    const response = await app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: turnId, through_input_order: current.input_order },
    });
    expect(response.status).toBe(200);
    expect(response.json()).toMatchObject({ run_id: turnId, state: "requested" });
    await app.kill();
    await app.boot();
  }

  /** The session once it neither runs nor waits to recover: idle, or a turn waiting for an answer. */
  function settled(app: DaemonHarness, sessionId: string): Promise<Snapshot> {
    return eventually("the session to settle", async () => {
      const response = await app.api(`/sessions/${sessionId}?tail=0`);
      if (response.status !== 200) return undefined;
      const current = response.json<Snapshot>();
      return current.status.phase === "running" ? undefined : current;
    });
  }

  it("ends a turn interrupted just before SIGKILL as interrupted: the waiting call is denied, no new turn runs", async () => {
    // The built-in policy: the command waits for an answer.
    const app = await daemon({ config: { approvalPolicy: undefined } });
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_wait" }]),
    );
    fake.provider.script = () => text("a turn that should not run");
    const sessionId = await app.createSession();
    const inputId = uuidv7();
    await app.prompt(sessionId, "record a run", inputId);
    const waiting = await eventually("the call to wait for an answer", async () => {
      const current = await snapshot(app, sessionId);
      return current.status.phase === "waiting" ? current : undefined;
    });

    await interruptThenKill(app, sessionId, waiting.status.run_id!);

    const after = await settled(app, sessionId);
    expect(after.status.phase).toBe("idle");
    expect(after.pending_approvals).toEqual([]);
    expect((await app.receipt(sessionId, inputId)).turn).toMatchObject({
      id: waiting.status.run_id,
      state: "interrupted",
    });
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "tool_call", "tool_result"]);
    expect(toolResultText(history.items[2])).toMatch(
      /not run: the user interrupted the turn while it waited/,
    );
    expect(fake.provider.requests).toHaveLength(1);
    expect(existsSync(join(app.workspace, "effects.txt"))).toBe(false);
  });

  it("ends a turn interrupted mid-tool just before SIGKILL as interrupted: no note, no new turn, the tool not run again", async () => {
    const app = await daemon();
    const command = "echo started >> effects.txt; sleep 30";
    fake.provider.queue(toolCalls([{ name: "run_command", args: { command }, id: "call_sleep" }]));
    fake.provider.script = () => text("a turn that should not run");
    const sessionId = await app.createSession();
    const inputId = uuidv7();
    await app.prompt(sessionId, "record that you started, then wait", inputId);
    const effects = join(app.workspace, "effects.txt");
    await eventually("the command to start", () => (existsSync(effects) ? true : undefined));
    const turnId = (await app.receipt(sessionId, inputId)).turn!.id;

    await interruptThenKill(app, sessionId, turnId);

    const after = await settled(app, sessionId);
    expect(after.status.phase).toBe("idle");
    expect((await app.receipt(sessionId, inputId)).turn).toMatchObject({
      id: turnId,
      state: "interrupted",
    });
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "tool_call", "tool_result"]);
    expect(toolResultText(history.items[2])).toMatch(/interrupted by the user.*outcome is unknown/);
    expect(fake.provider.requests).toHaveLength(1);
    expect(readFileSync(effects, "utf8")).toBe("started\n");
  });

  it("keeps queued inputs and their order across SIGKILL, and a re-PUT after the crash is the same receipt", async () => {
    const app = await daemon();
    fake.provider.script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await app.createSession();
    const first = uuidv7();
    await app.prompt(sessionId, "hangs", first);
    await fake.provider.waitForRequests(1);
    const queued = [uuidv7(), uuidv7()];
    const receipts = [];
    for (const [index, id] of queued.entries())
      receipts.push(await app.prompt(sessionId, `queued ${index}`, id));

    await app.kill();
    await app.boot();
    await app.idle(sessionId);

    expect((await app.receipt(sessionId, first)).turn?.state).toBe("abandoned");
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => [entry.kind, entry.input_id])).toEqual([
      ["user", first],
      ["note", null],
      ["assistant", null],
      ["user", queued[0]],
      ["user", queued[1]],
      ["assistant", null],
    ]);
    for (const [index, id] of queued.entries()) {
      const receipt = await app.receipt(sessionId, id);
      expect(receipt).toMatchObject({ delivery: "committed", acceptance_order: index + 2 });
      expect(receipt.turn?.state).toBe("completed");
      // Idempotent across the crash: the same PUT is the same receipt and runs nothing.
      const again = await app.prompt(sessionId, `queued ${index}`, id);
      expect(again).toMatchObject({
        id,
        acceptance_order: receipts[index]!.acceptance_order,
        delivery: "committed",
      });
    }
    const conflict = await app.api(`/sessions/${sessionId}/inputs/${first}`, {
      method: "PUT",
      body: { kind: "message", text: "not what was sent" },
    });
    expect(conflict.status).toBe(409);
    await app.idle(sessionId);
    expect(fake.provider.requests).toHaveLength(3);
  });

  it("ends a turn cut by an actor restart as failed, and the session takes its queued and next inputs", async () => {
    const app = await daemon({ env: { SKEIN_INSPECT: "1" } });
    fake.provider.script = (request) => (request.index === 0 ? hang() : text(`answer ${request.index}`));
    const sessionId = await app.createSession();
    const first = uuidv7();
    await app.prompt(sessionId, "hangs", first);
    await fake.provider.waitForRequests(1);
    const queued = uuidv7();
    await app.prompt(sessionId, "queued behind it", queued);
    const watcher = await app.openStream(sessionId);
    await watcher.next();

    const restarted = await app.api(`/debug/sessions/${sessionId}/restart`, { method: "POST" });
    expect(restarted.json()).toEqual({ result: "actor_stopped" });
    await watcher.waitClosed();
    await app.idle(sessionId);

    expect((await app.receipt(sessionId, first)).turn?.state).toBe("failed");
    expect((await app.receipt(sessionId, queued)).turn?.state).toBe("completed");
    const next = uuidv7();
    await app.prompt(sessionId, "and now?", next);
    await app.idle(sessionId);
    expect((await app.receipt(sessionId, next)).turn?.state).toBe("completed");
    expect(userTexts((await app.history(sessionId)).items)).toEqual([
      "hangs",
      "queued behind it",
      "and now?",
    ]);
  });

  it("drains on shutdown: refuses new work, ends streams, exits 0, and the next start recovers the cut turn", async () => {
    const app = await daemon();
    fake.provider.script = (request) => (request.index === 0 ? hang() : text("picked up again"));
    const sessionId = await app.createSession();
    const inputId = uuidv7();
    await app.prompt(sessionId, "long running", inputId);
    await fake.provider.waitForRequests(1);
    const watcher = await app.openStream(sessionId);
    await watcher.next();
    const instanceId = (await app.api("/server")).json<{ instance_id: string }>().instance_id;

    const shutdown = await app.api("/server/shutdown", {
      method: "POST",
      body: { instance_id: instanceId, timeout_ms: 1_500 },
    });
    expect(shutdown.status).toBe(202);
    await eventually("the daemon to report draining", async () =>
      (await app.api("/server")).json().state === "draining" ? true : undefined,
    );
    // A draining daemon is alive but takes no new work: its readiness probe says so.
    expect((await app.api("/healthz", { headers: { authorization: "" } })).status).toBe(200);
    expect((await app.api("/readyz", { headers: { authorization: "" } })).status).toBe(503);
    const refused = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "too late" },
    });
    expect(refused.status).toBe(503);
    expect(refused.json().code).toBe("daemon_unavailable");
    const noSession = await app.api(`/sessions/${uuidv7()}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace },
    });
    expect(noSession.status).toBe(503);

    await watcher.waitClosed();
    expect(await app.waitExit()).toBe(0);

    await app.boot();
    await app.idle(sessionId);
    expect((await app.receipt(sessionId, inputId)).turn?.state).toBe("abandoned");
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "note", "assistant"]);
    expect(userTexts(history.items)).toEqual(["long running"]);
  });

  it("shuts down through the API only for its own instance id, then exits 0", async () => {
    const app = await daemon();
    const server = await app.api("/server");
    expect(server.json()).toMatchObject({ protocol: 3, state: "ready" });
    const instanceId = server.json<{ instance_id: string }>().instance_id;

    const wrong = await app.api("/server/shutdown", { method: "POST", body: { instance_id: uuidv7() } });
    expect(wrong.status).toBe(409);
    expect(wrong.headers["content-type"]).toBe("application/problem+json");
    expect(wrong.json().code).toBe("instance_changed");
    expect((await app.api("/server")).json().state).toBe("ready");

    const right = await app.api("/server/shutdown", {
      method: "POST",
      body: { instance_id: instanceId, timeout_ms: 2_000 },
    });
    expect(right.status).toBe(202);
    expect(right.json()).toEqual({ instance_id: instanceId, state: "draining" });
    expect(await app.waitExit()).toBe(0);
    expect(existsSync(join(app.home, "daemon.json"))).toBe(false);
  });

  it("exits 0 on SIGTERM, and a second daemon on the same home exits non-zero saying why", async () => {
    const app = await daemon();
    const second = await app.runAnotherDaemon();
    // 75 (EX_TEMPFAIL): the code a starter that lost the race for the home looks for.
    expect(second.code).toBe(75);
    expect(second.output).toMatch(/another Skein daemon .*is running/);
    // The first one is unaffected.
    expect((await app.api("/server")).status).toBe(200);
    const sessionId = await app.createSession();
    await app.turn(sessionId, "still here?");

    expect(await app.signal("SIGTERM")).toBe(0);
    // The home is free again: a new daemon starts on it and finds the session.
    await app.boot();
    expect((await app.api(`/sessions/${sessionId}`)).status).toBe(200);
  });

  it("starts without a provider; a turn fails with an error that says how to configure one", async () => {
    const app = await daemon({ configured: false });
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    await stream.next();
    const inputId = uuidv7();
    await app.prompt(sessionId, "hello?", inputId);
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const events = eventsOf(frames);
    const error = events.find((event) => event.type === "error");
    expect(error?.data.code).toBe("provider_unconfigured");
    expect(String(error?.data.message)).toMatch(/config\.json/);
    expect(String(error?.data.message)).toMatch(/skein config/);
    expect(events.find((event) => event.type === "turn_completed")?.data.state).toBe("failed");
    await app.idle(sessionId);
    expect((await app.receipt(sessionId, inputId)).turn?.state).toBe("failed");
    expect(fake.provider.requests).toHaveLength(0);
  });
});
