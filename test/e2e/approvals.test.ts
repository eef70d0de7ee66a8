/**
 * Approvals end to end, against the real daemon process: a call the policy asks about waits
 * (snapshot, status, event) and runs once when allowed; a deny's message reaches the model; two
 * clients answering at once get one decision; SIGKILL while a call waits leaves it waiting (and
 * unrun) after the restart, and SIGKILL after an allow, mid-tool, follows the unknown-outcome
 * rule; an interrupt denies what waits; `ask_user` round trip; "always" answers; session
 * policies; the tool-round cap; a drain does not wait for a person.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { testServerConfig } from "../support/mcp/servers.js";
import type { ApiResponse, DaemonHarness } from "./support/daemon-harness.js";
import { contentText, eventually, messagesOf, toolResultOf, useFakeProvider } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface PendingApprovalJson {
  call_id: string;
  tool: string;
  arguments: string;
  rule: { source: string; tool: string | null; pattern: string | null; action: string };
  run_id: string | null;
  requested_at: string;
}

interface Snapshot {
  status: { phase: string; run_id: string | null };
  pending_inputs: unknown[];
  pending_approvals: PendingApprovalJson[];
  approval_policy: unknown;
}

describe("approvals", () => {
  const fake = useFakeProvider();

  /** A daemon with the built-in policy (or the config.json fields given). */
  async function daemon(
    config: Record<string, unknown> = { approvalPolicy: undefined },
    mcpServers?: Record<string, unknown>,
  ): Promise<DaemonHarness> {
    return fake.daemon({ config, ...(mcpServers === undefined ? {} : { mcpServers }) }, () => text("done"));
  }

  async function snapshot(app: DaemonHarness, sessionId: string): Promise<Snapshot> {
    const response = await app.api(`/sessions/${sessionId}?tail=0`);
    expect(response.status).toBe(200);
    return response.json<Snapshot>();
  }

  /** Wait until `count` calls wait for an answer; returns them. */
  function waitingCalls(app: DaemonHarness, sessionId: string, count = 1): Promise<PendingApprovalJson[]> {
    return eventually(`${count} call(s) waiting for approval`, async () => {
      const response = await app.api(`/sessions/${sessionId}?tail=0`);
      if (response.status !== 200) return undefined;
      const current = response.json<Snapshot>();
      return current.pending_approvals.length === count && current.status.phase === "waiting"
        ? current.pending_approvals
        : undefined;
    });
  }

  function answer(app: DaemonHarness, sessionId: string, callId: string, body: Record<string, unknown>) {
    return app.api(`/sessions/${sessionId}/approvals/${encodeURIComponent(callId)}`, {
      method: "POST",
      body,
    });
  }

  /** The kinds of the session's log entries, in order (read from the daemon's database). */
  async function logKinds(app: DaemonHarness, sessionId: string): Promise<string[]> {
    const rows = await app.sql<{ kind: string }>(
      "SELECT kind FROM transcript WHERE session = ? ORDER BY position",
      [sessionId],
    );
    return rows.map((row) => row.kind);
  }

  function effects(app: DaemonHarness): string {
    const path = join(app.workspace, "effects.txt");
    return existsSync(path) ? readFileSync(path, "utf8") : "";
  }

  it("asks before a command runs: the call waits in the snapshot and the stream, and an allow runs it once", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
      text("It ran."),
    );
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    await app.prompt(sessionId, "record a run");

    const [pending] = await waitingCalls(app, sessionId);
    expect(pending).toMatchObject({
      call_id: "call_echo",
      tool: "run_command",
      rule: { source: "builtin", tool: null, pattern: null, action: "ask" },
    });
    expect(JSON.parse(pending!.arguments)).toEqual({ command: "echo ran >> effects.txt" });
    const frames = await stream.readUntil((event) => event.type === "approval_requested");
    const requested = eventsOf(frames).find((event) => event.type === "approval_requested");
    expect(requested?.data).toMatchObject({
      call_id: "call_echo",
      tool: "run_command",
      rule: { action: "ask" },
    });
    expect(eventsOf(frames).some((event) => event.type === "status" && event.data.phase === "waiting")).toBe(
      true,
    );
    expect(effects(app)).toBe("");
    expect(fake.provider.requests).toHaveLength(1);

    const allowed = await answer(app, sessionId, "call_echo", { decision: "allow", client_id: "test" });
    expect(allowed.status).toBe(200);
    expect(allowed.json()).toMatchObject({
      call_id: "call_echo",
      decision: "allow",
      by: "client",
      client_id: "test",
      message: null,
      remember: null,
    });
    await app.idle(sessionId);
    stream.close();
    expect(effects(app)).toBe("ran\n");

    // The same answer again is the recorded one; the other answer is refused; an unknown call is 404.
    const again = await answer(app, sessionId, "call_echo", { decision: "allow" });
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(allowed.json());
    const other = await answer(app, sessionId, "call_echo", { decision: "deny" });
    expect(other.status).toBe(409);
    expect(other.json()).toMatchObject({ code: "approval_conflict" });
    const unknown = await answer(app, sessionId, "call_nope", { decision: "allow" });
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: "approval_unknown" });

    // The request and the decision are in the chain, before the tool's result.
    const kinds = await logKinds(app, sessionId);
    const requestedAt = kinds.indexOf("approval_requested");
    expect(kinds[requestedAt - 1]).toBe("assistant_items");
    expect(kinds.indexOf("approval_resolved")).toBeGreaterThan(requestedAt);
    expect(kinds.indexOf("tool_results")).toBeGreaterThan(kinds.indexOf("approval_resolved"));
    expect((await app.api(`/sessions/${sessionId}/verify`)).json()).toMatchObject({ status: "verified" });
    expect(effects(app)).toBe("ran\n");
  });

  it("denies with a message the model reads, and the command never runs", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
      text("Understood."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "record a run");
    await waitingCalls(app, sessionId);

    const denied = await answer(app, sessionId, "call_echo", {
      decision: "deny",
      message: "use the Makefile",
    });
    expect(denied.status).toBe(200);
    expect(denied.json()).toMatchObject({ decision: "deny", message: "use the Makefile" });
    await app.idle(sessionId);

    expect(effects(app)).toBe("");
    const tool = messagesOf(fake.provider.requests[1]!).find((message) => message.role === "tool");
    expect(tool?.tool_call_id).toBe("call_echo");
    expect(contentText(tool!)).toMatch(/The user denied this tool call.*use the Makefile/);
  });

  it("takes one decision when two clients answer at once: one 200, the other 409", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "record a run");
    await waitingCalls(app, sessionId);

    const answers = await Promise.all([
      answer(app, sessionId, "call_echo", { decision: "allow" }),
      answer(app, sessionId, "call_echo", { decision: "deny" }),
      answer(app, sessionId, "call_echo", { decision: "allow" }),
      answer(app, sessionId, "call_echo", { decision: "deny" }),
    ]);
    const won = answers.filter((response) => response.status === 200);
    const lost = answers.filter((response) => response.status === 409);
    expect(won.length + lost.length).toBe(4);
    const decisions = new Set(won.map((response) => response.json().decision));
    expect(decisions.size).toBe(1);
    expect(won).toHaveLength(2);
    await app.idle(sessionId);
    expect(effects(app)).toBe(decisions.has("allow") ? "ran\n" : "");
    expect((await logKinds(app, sessionId)).filter((kind) => kind === "approval_resolved")).toHaveLength(1);
  });

  it("keeps a waiting call waiting across SIGKILL: not run, still listed, and run once when allowed", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
      text("It ran once."),
    );
    const sessionId = await app.createSession();
    const inputId = uuidv7();
    await app.prompt(sessionId, "record a run", inputId);
    const [before] = await waitingCalls(app, sessionId);

    await app.kill();
    await app.boot();

    const [after] = await waitingCalls(app, sessionId);
    expect(after).toMatchObject({
      call_id: "call_echo",
      tool: "run_command",
      requested_at: before!.requested_at,
    });
    const current = await snapshot(app, sessionId);
    // The cut turn is abandoned; a new turn waits for the same call.
    expect((await app.receipt(sessionId, inputId)).turn?.state).toBe("abandoned");
    expect(current.status.run_id).not.toBe(before!.run_id);
    expect(effects(app)).toBe("");
    expect(await app.historyKinds(sessionId)).toEqual(["user", "tool_call"]);

    expect((await answer(app, sessionId, "call_echo", { decision: "allow" })).status).toBe(200);
    await app.idle(sessionId);
    expect(effects(app)).toBe("ran\n");
    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "assistant",
    ]);
    expect(toolResultOf(history.items, "call_echo")).toMatch(/^exit code: 0/);
    expect(fake.provider.requests).toHaveLength(2);
  });

  it("treats a call allowed before SIGKILL whose tool had not finished as of unknown outcome, never run again", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([
        { name: "run_command", args: { command: "echo started >> effects.txt; sleep 30" }, id: "call_sleep" },
      ]),
      text("I will check effects.txt first."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "start and wait");
    await waitingCalls(app, sessionId);
    expect((await answer(app, sessionId, "call_sleep", { decision: "allow" })).status).toBe(200);
    await eventually("the command to start", () => (effects(app) === "" ? undefined : true));

    await app.kill();
    await app.boot();
    await app.idle(sessionId);

    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "note",
      "assistant",
    ]);
    expect(toolResultOf(history.items, "call_sleep")).toMatch(/outcome is unknown/);
    expect(effects(app)).toBe("started\n");
    expect((await snapshot(app, sessionId)).pending_approvals).toEqual([]);
  });

  it("keeps a deny answered just before SIGKILL: the call gets the user's denial and message, not an unknown outcome", async () => {
    // The allowed `sleep` of the same batch runs after the deny, so the batch's results are
    // still unwritten when the daemon is killed, however fast the loop is.
    const app = await daemon({
      approvalPolicy: {
        default: "ask",
        rules: [{ tool: "run_command", pattern: "sleep *", action: "allow" }],
      },
    });
    fake.provider.queue(
      toolCalls([
        { name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" },
        { name: "run_command", args: { command: "sleep 30" }, id: "call_sleep" },
      ]),
      text("Understood, I will use the Makefile."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "record a run, then wait");
    await waitingCalls(app, sessionId);

    const denied = await answer(app, sessionId, "call_echo", {
      decision: "deny",
      message: "use the Makefile",
    });
    expect(denied.status).toBe(200);
    await app.kill();
    await app.boot();
    await app.idle(sessionId);

    const history = await app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_call",
      "tool_result",
      "tool_result",
      "note",
      "assistant",
    ]);
    expect(toolResultOf(history.items, "call_echo")).toBe(
      "The user denied this tool call; it was not run. Their message: use the Makefile",
    );
    expect(toolResultOf(history.items, "call_sleep")).toMatch(/outcome is unknown/);
    // The model reads the denial with its message after the restart.
    const tool = messagesOf(fake.provider.requests[1]!).find(
      (message) => message.tool_call_id === "call_echo",
    );
    expect(contentText(tool!)).toMatch(/The user denied this tool call.*use the Makefile/);
    expect(effects(app)).toBe("");
  });

  it("denies what waits when the turn is interrupted", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([
        { name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_a" },
        { name: "write_file", args: { path: "b.txt", content: "b" }, id: "call_b" },
        { name: "read_file", args: { path: "b.txt" }, id: "call_c" },
      ]),
    );
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    await app.prompt(sessionId, "do three things");
    const waiting = await waitingCalls(app, sessionId, 2);
    expect(waiting.map((call) => call.call_id)).toEqual(["call_a", "call_b"]);
    const turnId = (await snapshot(app, sessionId)).status.run_id;

    const interrupted = await app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: turnId, through_input_order: 0 },
    });
    expect(interrupted.json()).toMatchObject({ state: "requested" });
    await app.idle(sessionId);
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();

    const resolved = eventsOf(frames).filter((event) => event.type === "approval_resolved");
    expect(resolved.map((event) => [event.data.call_id, event.data.decision, event.data.by])).toEqual([
      ["call_a", "deny", "interrupt"],
      ["call_b", "deny", "interrupt"],
    ]);
    expect(eventsOf(frames).find((event) => event.type === "turn_completed")?.data).toMatchObject({
      state: "interrupted",
    });
    const history = await app.history(sessionId);
    for (const callId of ["call_a", "call_b", "call_c"]) {
      expect(toolResultOf(history.items, callId)).toMatch(
        /not run: the user interrupted the turn while it waited/,
      );
    }
    expect(effects(app)).toBe("");
    expect(existsSync(join(app.workspace, "b.txt"))).toBe(false);
    expect((await snapshot(app, sessionId)).pending_approvals).toEqual([]);
    expect((await answer(app, sessionId, "call_a", { decision: "allow" })).status).toBe(409);
  });

  it("asks the user with ask_user and gives the model the answer", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "ask_user", args: { question: "Which colour?" }, id: "call_ask" }]),
      text("Blue it is."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "paint it");
    const [question] = await waitingCalls(app, sessionId);
    expect(question).toMatchObject({ tool: "ask_user", rule: { source: "ask_user", action: "ask" } });
    expect(JSON.parse(question!.arguments)).toEqual({ question: "Which colour?" });

    const bare = await answer(app, sessionId, "call_ask", { decision: "allow" });
    expect(bare.status).toBe(400);
    expect(bare.json()).toMatchObject({ code: "invalid_request" });
    expect((await answer(app, sessionId, "call_ask", { decision: "allow", message: "blue" })).status).toBe(
      200,
    );
    await app.idle(sessionId);

    const offered =
      (fake.provider.requests[0]!.body as { tools?: Array<{ function: { name: string } }> }).tools ?? [];
    expect(offered.map((tool) => tool.function.name)).toContain("ask_user");
    const tool = messagesOf(fake.provider.requests[1]!).find((message) => message.role === "tool");
    expect(contentText(tool!)).toBe("blue");
  });

  it("remembers an always answer for the session: the matching waiting call is answered too, and later ones are not asked", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "a.txt", content: "a" }, id: "call_a" },
        { name: "write_file", args: { path: "b.txt", content: "b" }, id: "call_b" },
      ]),
      toolCalls([{ name: "write_file", args: { path: "c.txt", content: "c" }, id: "call_c" }]),
      text("Three files."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "write three files");
    await waitingCalls(app, sessionId, 2);

    const always = await answer(app, sessionId, "call_a", { decision: "allow", remember: true });
    expect(always.json()).toMatchObject({ remember: { tool: "write_file", action: "allow" } });
    await app.idle(sessionId);
    for (const name of ["a", "b", "c"])
      expect(readFileSync(join(app.workspace, `${name}.txt`), "utf8")).toBe(name);
    expect((await answer(app, sessionId, "call_b", { decision: "allow" })).json()).toMatchObject({
      by: "rule",
    });
    expect((await logKinds(app, sessionId)).filter((kind) => kind === "approval_requested")).toHaveLength(2);
  });

  it("applies a session's own policy from creation, and a changed one from then on", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([
        { name: "run_command", args: { command: "rm -rf build" }, id: "call_rm" },
        { name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" },
      ]),
      text("rm was refused."),
    );
    const policy = { default: "allow", rules: [{ tool: "run_command", pattern: "rm *", action: "deny" }] };
    const sessionId = await app.createSession({ approval_policy: policy });
    expect((await snapshot(app, sessionId)).approval_policy).toEqual(policy);
    await app.turn(sessionId, "clean and record");
    const history = await app.history(sessionId);
    expect(toolResultOf(history.items, "call_rm")).toMatch(
      /denied by the approval policy \(run_command "rm \*" → deny \(session\)\)/,
    );
    expect(effects(app)).toBe("ran\n");

    const changed = await app.api(`/sessions/${sessionId}/approval-policy`, {
      method: "PUT",
      body: { approval_policy: null },
    });
    expect(changed.status).toBe(200);
    expect(changed.json()).toEqual({ approval_policy: null, approval_mode: "ask" });
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo again >> effects.txt" }, id: "call_2" }]),
    );
    await app.prompt(sessionId, "record again");
    await waitingCalls(app, sessionId);
    expect(
      (await logKinds(app, sessionId)).filter((kind) => kind === "approval_policy_changed"),
    ).toHaveLength(2);

    const bad = await app.api(`/sessions/${sessionId}/approval-policy`, {
      method: "PUT",
      body: { approval_policy: { default: "maybe" } },
    });
    expect(bad.status).toBe(400);
  });

  it("ends a turn at the tool-round cap with the outcome limit_reached, not an error", async () => {
    const app = await daemon({ approvalPolicy: undefined, maxToolRounds: 2 });
    let call = 0;
    fake.provider.script = () =>
      toolCalls([{ name: "list_files", args: { path: "." }, id: `call_${call++}` }]);
    const sessionId = await app.createSession();
    const stream = await app.openStream(sessionId);
    await app.turn(sessionId, "loop forever");
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();

    expect(fake.provider.requests).toHaveLength(2);
    const completed = eventsOf(frames).find((event) => event.type === "turn_completed");
    expect(completed?.data).toMatchObject({ state: "completed", outcome: "limit_reached" });
    expect(eventsOf(frames).some((event) => event.type === "error")).toBe(false);
    const kinds = await app.historyKinds(sessionId);
    expect(kinds).toEqual(["user", "tool_call", "tool_result", "tool_call", "tool_result"]);
  });

  it("does not hold a shutdown for a call that waits for a person; the next start waits again", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
      text("ok"),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "record a run");
    await waitingCalls(app, sessionId);

    const started = Date.now();
    await app.shutdown(20_000);
    expect(Date.now() - started).toBeLessThan(10_000);
    await app.boot();
    await waitingCalls(app, sessionId);
    expect(effects(app)).toBe("");
    expect((await answer(app, sessionId, "call_echo", { decision: "allow" })).status).toBe(200);
    await app.idle(sessionId);
    expect(effects(app)).toBe("ran\n");
  });

  it("asks before an MCP tool runs, and lets config.json's rules allow a server's tools", async () => {
    const app = await daemon({ approvalPolicy: undefined }, { test: testServerConfig() });
    fake.provider.queue(
      toolCalls([{ name: "test__echo", args: { text: "asked first" }, id: "call_mcp" }]),
      text("echoed"),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "echo");
    const [pending] = await waitingCalls(app, sessionId);
    expect(pending).toMatchObject({ tool: "test__echo", rule: { source: "builtin", action: "ask" } });
    expect((await answer(app, sessionId, "call_mcp", { decision: "allow" })).status).toBe(200);
    await app.idle(sessionId);
    expect(toolResultOf((await app.history(sessionId)).items, "call_mcp")).toBe("asked first");

    const allowing = await daemon(
      { approvalPolicy: { rules: [{ tool: "test__*", action: "allow" }] } },
      { test: testServerConfig() },
    );
    fake.provider.queue(
      toolCalls([{ name: "test__echo", args: { text: "not asked" }, id: "call_mcp2" }]),
      text("ok"),
    );
    const other = await allowing.createSession();
    await allowing.turn(other, "echo");
    expect(toolResultOf((await allowing.history(other)).items, "call_mcp2")).toBe("not asked");
    expect(await logKinds(allowing, other)).not.toContain("approval_requested");
  });

  it("asks again for a new call that reuses an old call's id (as some servers do)", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo first >> effects.txt" }, id: "call_0" }]),
      text("First done."),
      toolCalls([{ name: "run_command", args: { command: "echo second >> effects.txt" }, id: "call_0" }]),
      text("Second done."),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "first");
    await waitingCalls(app, sessionId);
    expect((await answer(app, sessionId, "call_0", { decision: "allow" })).status).toBe(200);
    await app.idle(sessionId);
    await app.prompt(sessionId, "second");
    const [again] = await waitingCalls(app, sessionId);
    expect(JSON.parse(again!.arguments)).toEqual({ command: "echo second >> effects.txt" });
    expect(effects(app)).toBe("first\n");
    expect((await answer(app, sessionId, "call_0", { decision: "deny" })).status).toBe(200);
    await app.idle(sessionId);
    expect(effects(app)).toBe("first\n");
  });

  it("refuses answers of the wrong shape and changes nothing", async () => {
    const app = await daemon();
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_echo" }]),
    );
    const sessionId = await app.createSession();
    await app.prompt(sessionId, "record a run");
    await waitingCalls(app, sessionId);
    const bodies: unknown[] = [
      {},
      { decision: "yes" },
      { decision: "allow", extra: 1 },
      { decision: "allow", remember: "no" },
    ];
    for (const body of bodies) {
      const response: ApiResponse = await answer(
        app,
        sessionId,
        "call_echo",
        body as Record<string, unknown>,
      );
      expect(response.status, JSON.stringify(body)).toBe(400);
    }
    expect((await snapshot(app, sessionId)).pending_approvals).toHaveLength(1);
    expect(await logKinds(app, sessionId)).not.toContain("approval_resolved");
  });
});
