/**
 * Inputs while a turn runs (FIFO order, the 32-input limit, concurrent duplicates, `continue`),
 * interrupts before the first token, in the middle of a streamed answer (what streamed is kept,
 * marked), during a tool and
 * through a given input order, a provider refusal, cancelling one input, and deleting a session
 * down to its last row. One daemon for the file; each test uses its own session. A "gate" holds the
 * fake provider's answer until the test opens it, so a turn runs exactly as long as needed.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { deliver, deltas, hang, httpError, text, toolCalls } from "../support/fake-provider/reply.js";
import { type DaemonHarness, databaseKinds, sleep, userTexts } from "./support/daemon-harness.js";
import {
  contentText,
  eventually,
  gate,
  holdFirstRequest,
  messagesOf,
  useSharedFixture,
} from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface Snapshot {
  status: { phase: string; run_id: string | null; interrupt_requested: boolean };
  input_order: number;
  pending_inputs: Array<{ id: string; acceptance_order: number; delivery: string }>;
}

describe.each(databaseKinds)("inputs, interrupts, cancel and delete ($name)", ({ database }) => {
  const shared = useSharedFixture({ database, answer: "ok" });

  async function snapshot(sessionId: string): Promise<Snapshot> {
    const response = await shared.app.api(`/sessions/${sessionId}?tail=0`);
    expect(response.status).toBe(200);
    return response.json<Snapshot>();
  }

  /** Wait until the session runs a turn whose provider request has arrived; its run id. */
  async function runningTurn(sessionId: string, requests: number): Promise<Snapshot> {
    await shared.provider.waitForRequests(requests);
    return eventually("a running turn", async () => {
      const current = await snapshot(sessionId);
      return current.status.phase === "running" && current.status.run_id !== null ? current : undefined;
    });
  }

  async function put(sessionId: string, inputId: string, textBody: string) {
    return shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "message", text: textBody },
    });
  }

  it("delivers inputs that arrive during a turn in acceptance order, in later turns", async () => {
    const held = holdFirstRequest(shared.provider, (index) => `answer ${index}`);
    const sessionId = await shared.app.createSession();
    const first = uuidv7();
    await shared.app.prompt(sessionId, "first", first);
    await runningTurn(sessionId, 1);
    const queued = [uuidv7(), uuidv7(), uuidv7()];
    for (const [index, id] of queued.entries()) {
      const response = await put(sessionId, id, `queued ${index}`);
      expect(response.status).toBe(202);
      expect(response.json()).toMatchObject({ delivery: "pending", acceptance_order: index + 2 });
    }
    const waiting = await snapshot(sessionId);
    expect(waiting.pending_inputs.map((input) => input.id)).toEqual(queued);
    expect(waiting.pending_inputs.map((input) => input.acceptance_order)).toEqual([2, 3, 4]);
    expect(waiting.input_order).toBe(4);

    held.open();
    await shared.app.idle(sessionId);
    const history = await shared.app.history(sessionId);
    expect(userTexts(history.items)).toEqual(["first", "queued 0", "queued 1", "queued 2"]);
    const receipts = await Promise.all([first, ...queued].map((id) => shared.app.receipt(sessionId, id)));
    expect(receipts.map((receipt) => receipt.delivery)).toEqual([
      "committed",
      "committed",
      "committed",
      "committed",
    ]);
    expect(receipts.map((receipt) => receipt.turn?.state)).toEqual([
      "completed",
      "completed",
      "completed",
      "completed",
    ]);
    const positions = receipts.map((receipt) => receipt.transcript_position ?? -1);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
    // The queued inputs were not slipped into the running turn: they ran after it.
    for (const receipt of receipts.slice(1)) expect(receipt.turn?.id).not.toBe(receipts[0]!.turn?.id);
    // The model saw them in order, after the first answer.
    const lastMessages = messagesOf(shared.provider.lastRequest).filter((message) => message.role === "user");
    expect(lastMessages.map(contentText)).toEqual(["first", "queued 0", "queued 1", "queued 2"]);
  });

  it("refuses the 33rd waiting input with 429 queue_full but still accepts a duplicate of a waiting one", async () => {
    shared.provider.script = () => hang();
    const sessionId = await shared.app.createSession();
    await shared.app.prompt(sessionId, "running");
    const running = await runningTurn(sessionId, 1);
    const waiting: string[] = [];
    for (let index = 0; index < 32; index++) {
      const id = uuidv7();
      const response = await put(sessionId, id, `waiting ${index}`);
      expect(response.status).toBe(202);
      waiting.push(id);
    }
    const full = await put(sessionId, uuidv7(), "one too many");
    expect(full.status).toBe(429);
    expect(full.headers["content-type"]).toBe("application/problem+json");
    expect(full.json().code).toBe("queue_full");
    const duplicate = await put(sessionId, waiting[5]!, "waiting 5");
    expect(duplicate.status).toBe(202);
    expect(duplicate.json()).toMatchObject({ id: waiting[5], acceptance_order: 7, delivery: "pending" });
    const current = await snapshot(sessionId);
    expect(current.pending_inputs).toHaveLength(32);
    expect(current.input_order).toBe(33);

    // Interrupt through the last order: the queue is emptied and the turn stops.
    const interrupted = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: current.input_order },
    });
    expect(interrupted.status).toBe(200);
    const result = interrupted.json<{ state: string; cancelled_input_ids: string[] }>();
    expect(result.state).toBe("requested");
    expect([...result.cancelled_input_ids].sort()).toEqual([...waiting].sort());
    await shared.app.idle(sessionId);
    expect(shared.provider.requests).toHaveLength(1);
  });

  it("interrupts a turn before the first token; the turn ends interrupted and the session takes the next input", async () => {
    shared.provider.script = () => hang();
    const sessionId = await shared.app.createSession();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "never answered", inputId);
    const running = await runningTurn(sessionId, 1);
    const stream = await shared.app.openStream(sessionId);
    await stream.next();

    const response = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      run_id: running.status.run_id,
      state: "requested",
      cancelled_input_ids: [],
    });
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const completed = eventsOf(frames).find((event) => event.type === "turn_completed");
    expect(completed?.data).toMatchObject({ run_id: running.status.run_id, state: "interrupted" });
    await shared.app.idle(sessionId);

    // The provider request was aborted, not left hanging.
    await shared.provider.requests[0]!.closed;
    expect(shared.provider.requests[0]!.clientAborted).toBe(true);
    const receipt = await shared.app.receipt(sessionId, inputId);
    expect(receipt.delivery).toBe("committed");
    expect(receipt.turn?.state).toBe("interrupted");

    // An interrupt of a turn that has ended says so.
    const late = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    expect(late.json()).toMatchObject({ state: "already_ended", cancelled_input_ids: [] });

    shared.provider.script = () => text("back again");
    const next = uuidv7();
    await shared.app.prompt(sessionId, "are you there?", next);
    await shared.app.idle(sessionId);
    expect((await shared.app.receipt(sessionId, next)).turn?.state).toBe("completed");
    expect(await shared.app.historyKinds(sessionId)).toEqual(["user", "user", "assistant"]);
  });

  it("interrupts in the middle of a streamed answer and commits the partial text, marked interrupted", async () => {
    shared.provider.script = () => deliver(deltas(400, "word "), { delayMs: 10 });
    const sessionId = await shared.app.createSession();
    const stream = await shared.app.openStream(sessionId);
    await stream.next();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "talk for a while", inputId);
    const running = await runningTurn(sessionId, 1);
    await stream.readUntil((event) => event.type === "text");

    const response = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    expect(response.json()).toMatchObject({ state: "requested" });
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const events = eventsOf(stream.frames);
    const streamed = events.filter((event) => event.type === "text").map((event) => String(event.data.text));
    expect(streamed.join("").length).toBeGreaterThan(0);
    expect(eventsOf(frames).find((event) => event.type === "turn_completed")?.data.state).toBe("interrupted");
    await shared.app.idle(sessionId);
    await shared.provider.requests[0]!.closed;
    expect(shared.provider.requests[0]!.clientAborted).toBe(true);

    // What streamed is committed with the turn's end, marked interrupted, and streamed as committed.
    const history = await shared.app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "assistant"]);
    expect(history.items[1]).toMatchObject({ interrupted: true, content: [{ text: streamed.join("") }] });
    const committed = events
      .filter((event) => event.type === "message")
      .map((event) => event.data.entry as { kind: string; interrupted?: boolean });
    expect(committed.map((entry) => [entry.kind, entry.interrupted ?? false])).toEqual([
      ["user", false],
      ["assistant", true],
    ]);
    expect((await shared.app.receipt(sessionId, inputId)).turn?.state).toBe("interrupted");

    // The next turn's request carries the partial answer as the assistant's.
    shared.provider.script = () => text("fresh");
    await shared.app.turn(sessionId, "again");
    const sent = messagesOf(shared.provider.lastRequest).filter((message) => message.role !== "system");
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(contentText(sent[1]!)).toBe(streamed.join(""));
  });

  it("admits concurrent duplicates of one input once", async () => {
    const sessionId = await shared.app.createSession();
    const inputId = uuidv7();
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => put(sessionId, inputId, "only once")),
    );
    expect(responses.map((response) => response.status)).toEqual([202, 202, 202, 202, 202, 202]);
    expect(new Set(responses.map((response) => response.json().acceptance_order))).toEqual(new Set([1]));
    await shared.app.idle(sessionId);
    expect(userTexts((await shared.app.history(sessionId)).items)).toEqual(["only once"]);
    expect(shared.provider.requests).toHaveLength(1);
    // client_id is not part of the input's identity: a retry with another one is the same input.
    const retried = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "message", text: "only once", client_id: "another-tab" },
    });
    expect(retried.status).toBe(202);
    expect(retried.json()).toMatchObject({ id: inputId, acceptance_order: 1, delivery: "committed" });
    // An input id belongs to one session: the same PUT to another session conflicts.
    const elsewhere = await put(await shared.app.createSession(), inputId, "only once");
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.json().code).toBe("input_conflict");
  });

  it("runs the model again for a continue input, with a continuation entry and no user entry", async () => {
    shared.provider.script = (request) => text(`reply ${request.index}`);
    const sessionId = await shared.app.createSession();
    await shared.app.turn(sessionId, "start");
    const inputId = uuidv7();
    const response = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "continue" },
    });
    expect(response.status).toBe(202);
    expect(response.json()).toMatchObject({ id: inputId, kind: "continue" });
    await shared.app.idle(sessionId);
    const history = await shared.app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual([
      "user",
      "assistant",
      "continuation",
      "assistant",
    ]);
    expect(history.items[2]!.input_id).toBe(inputId);
    expect(shared.provider.requests).toHaveLength(2);
    expect(messagesOf(shared.provider.lastRequest).filter((message) => message.role === "user")).toHaveLength(
      1,
    );
    expect((await shared.app.receipt(sessionId, inputId)).turn?.state).toBe("completed");
  });

  it("cancels queued inputs only through the given order, and leaves the turn running without its run id", async () => {
    const held = holdFirstRequest(shared.provider, () => "done");
    const sessionId = await shared.app.createSession();
    await shared.app.prompt(sessionId, "running");
    const running = await runningTurn(sessionId, 1);
    const queued = [uuidv7(), uuidv7(), uuidv7()];
    for (const [index, id] of queued.entries()) await put(sessionId, id, `queued ${index}`);
    const response = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: null, through_input_order: 3 },
    });
    expect(response.status).toBe(200);
    const result = response.json<{ run_id: string | null; state: string; cancelled_input_ids: string[] }>();
    expect(result.run_id).toBeNull();
    expect(result.state).toBe("already_ended");
    expect([...result.cancelled_input_ids].sort()).toEqual(queued.slice(0, 2).sort());
    const current = await snapshot(sessionId);
    expect(current.status).toMatchObject({
      phase: "running",
      run_id: running.status.run_id,
      interrupt_requested: false,
    });
    expect(current.pending_inputs.map((input) => input.id)).toEqual([queued[2]]);

    held.open();
    await shared.app.idle(sessionId);
    expect(userTexts((await shared.app.history(sessionId)).items)).toEqual(["running", "queued 2"]);
    const receipts = await Promise.all(queued.map((id) => shared.app.receipt(sessionId, id)));
    expect(receipts.map((receipt) => receipt.delivery)).toEqual(["cancelled", "cancelled", "committed"]);
  });

  it("interrupts a turn while a tool runs: the command is killed and its call gets a result", async () => {
    shared.provider.queue(
      toolCalls([
        {
          name: "run_command",
          args: { command: "echo begun > interrupted.txt; sleep 30; echo finished >> interrupted.txt" },
          id: "call_int_1",
        },
      ]),
    );
    const sessionId = await shared.app.createSession();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "run something slow", inputId);
    const marker = join(shared.app.workspace, "interrupted.txt");
    await eventually("the command to start", () => (existsSync(marker) ? true : undefined));
    const running = await snapshot(sessionId);
    const response = await shared.app.api(`/sessions/${sessionId}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    expect(response.json()).toMatchObject({ state: "requested" });
    await shared.app.idle(sessionId, 10_000);
    expect((await shared.app.receipt(sessionId, inputId)).turn?.state).toBe("interrupted");
    const history = await shared.app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "tool_call", "tool_result"]);
    expect(history.items[2]!.tool).toMatchObject({
      name: "run_command",
      tool_call_id: "call_int_1",
      is_error: true,
    });
    expect(readFileSync(marker, "utf8")).toBe("begun\n");

    // The next turn sends a well-formed history: the call and its result.
    shared.provider.script = () => text("ok, stopped");
    await shared.app.turn(sessionId, "what happened?");
    const messages = messagesOf(shared.provider.lastRequest);
    expect(messages.find((message) => message.role === "tool")?.tool_call_id).toBe("call_int_1");
  });

  it("fails a turn the provider refuses, with an error event, and runs the next one", async () => {
    shared.provider.queue(httpError(400, { message: "the fixture refuses this request" }));
    const sessionId = await shared.app.createSession();
    const stream = await shared.app.openStream(sessionId);
    await stream.next();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "refused", inputId);
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const events = eventsOf(frames);
    const error = events.find((event) => event.type === "error");
    expect(error?.data.code).toBe("provider_refused");
    expect(String(error?.data.message)).toContain("the fixture refuses this request");
    expect(events.find((event) => event.type === "turn_completed")?.data.state).toBe("failed");
    await shared.app.idle(sessionId);
    expect((await shared.app.receipt(sessionId, inputId)).turn?.state).toBe("failed");

    const next = uuidv7();
    await shared.app.prompt(sessionId, "accepted", next);
    await shared.app.idle(sessionId);
    expect((await shared.app.receipt(sessionId, next)).turn?.state).toBe("completed");
    expect(await shared.app.historyKinds(sessionId)).toEqual(["user", "user", "assistant"]);
  });

  it("sends a request again without the history message a refusal names, and says so on the stream", async () => {
    // A content filter that names the message it refuses, as OpenAI's `param` does.
    shared.provider.script = (request) => {
      const messages = (request.body as { messages: unknown[] }).messages;
      const index = messages.findIndex((message) => JSON.stringify(message).includes("POISON"));
      if (index < 0) return text("answered");
      return httpError(400, {
        body: JSON.stringify({
          error: { message: "flagged", type: "invalid_request_error", param: `messages.[${index}].content` },
        }),
      });
    };
    const sessionId = await shared.app.createSession();
    // The message the model is asked to answer is never left out: that turn fails.
    const refused = uuidv7();
    await shared.app.prompt(sessionId, "POISON", refused);
    await shared.app.idle(sessionId);
    expect((await shared.app.receipt(sessionId, refused)).turn?.state).toBe("failed");
    const stream = await shared.app.openStream(sessionId);
    await stream.next();
    await shared.app.prompt(sessionId, "and now?");
    const frames = await stream.readUntil((event) => event.type === "turn_completed");
    stream.close();
    const events = eventsOf(frames);
    const retry = events.find((event) => event.type === "retry");
    expect(retry?.data).toMatchObject({ delay_ms: 0, adjusted: [expect.stringContaining('"POISON"')] });
    expect(String(retry?.data.reason)).toContain("sent again without");
    expect(events.find((event) => event.type === "turn_completed")?.data.state).toBe("completed");
    expect(shared.provider.lastRequest.rawBody).not.toContain("POISON");
    // The log keeps the message: only the request left it out.
    expect(JSON.stringify((await shared.app.history(sessionId)).items)).toContain("POISON");
  });

  it("cancels a queued input, which is then never delivered", async () => {
    const held = holdFirstRequest(shared.provider, () => "done");
    const sessionId = await shared.app.createSession();
    const running = uuidv7();
    await shared.app.prompt(sessionId, "keep busy", running);
    await runningTurn(sessionId, 1);
    const queued = uuidv7();
    expect((await put(sessionId, queued, "cancel me")).status).toBe(202);

    const cancel = await shared.app.api(`/sessions/${sessionId}/inputs/${queued}/cancel`, {
      method: "POST",
      body: {},
    });
    expect(cancel.status).toBe(200);
    const result = cancel.json<{ result: string; input: { id: string; delivery: string; turn: unknown } }>();
    expect(result.result).toBe("cancelled");
    expect(result.input).toMatchObject({ id: queued, delivery: "cancelled", turn: null });
    expect((await snapshot(sessionId)).pending_inputs).toEqual([]);

    held.open();
    await shared.app.idle(sessionId);
    await sleep(100);
    const history = await shared.app.history(sessionId);
    expect(userTexts(history.items)).toEqual(["keep busy"]);
    expect(shared.provider.requests).toHaveLength(1);
    const receipt = await shared.app.receipt(sessionId, queued);
    expect(receipt).toMatchObject({ delivery: "cancelled", transcript_position: null, turn: null });
    const again = await shared.app.api(`/sessions/${sessionId}/inputs/${queued}/cancel`, { method: "POST" });
    expect(again.json()).toMatchObject({ result: "not_pending" });
    // Re-sending the cancelled input is idempotent: the same cancelled receipt, nothing queued.
    const resent = await put(sessionId, queued, "cancel me");
    expect(resent.status).toBe(202);
    expect(resent.json()).toMatchObject({ id: queued, delivery: "cancelled" });
    expect((await snapshot(sessionId)).pending_inputs).toEqual([]);
    await shared.app.idle(sessionId);
    expect(shared.provider.requests).toHaveLength(1);
  });

  it("cancelling the running turn's only input interrupts the turn", async () => {
    shared.provider.script = () => hang();
    const sessionId = await shared.app.createSession();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "stop me", inputId);
    await runningTurn(sessionId, 1);
    const cancel = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}/cancel`, {
      method: "POST",
    });
    expect(cancel.status).toBe(200);
    expect(cancel.json()).toMatchObject({ result: "interrupt_requested", input: { id: inputId } });
    await shared.app.idle(sessionId);
    const receipt = await shared.app.receipt(sessionId, inputId);
    expect(receipt.delivery).toBe("committed");
    expect(receipt.turn?.state).toBe("interrupted");
    const again = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}/cancel`, { method: "POST" });
    expect(again.json()).toMatchObject({ result: "not_pending" });
  });

  it("refuses to delete a running session, then deletes every row of it", async () => {
    const held = gate();
    shared.provider.script = async () => {
      await held.promise;
      return text("finished");
    };
    const sessionId = await shared.app.createSession();
    const other = await shared.app.createSession();
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "before delete", inputId);
    await runningTurn(sessionId, 1);
    const busy = await shared.app.api(`/sessions/${sessionId}`, { method: "DELETE" });
    expect(busy.status).toBe(409);
    expect(busy.headers["content-type"]).toBe("application/problem+json");
    expect(busy.json().code).toBe("session_busy");
    held.open();
    await shared.app.idle(sessionId);

    const before = await rowsMentioning(shared.app, sessionId);
    expect(before.tables).toEqual(expect.arrayContaining(["transcript", "inputs", "turns"]));
    expect(before.count).toBeGreaterThan(0);

    const watcher = await shared.app.openStream(sessionId);
    await watcher.next();
    const deleted = await shared.app.api(`/sessions/${sessionId}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    // A stream of a deleted session ends.
    await watcher.waitClosed();
    for (const path of [
      `/sessions/${sessionId}`,
      `/sessions/${sessionId}/history`,
      `/sessions/${sessionId}/inputs/${inputId}`,
    ]) {
      const gone = await shared.app.api(path);
      expect(gone.status).toBe(404);
      expect(gone.json().code).toBe("resource_not_found");
    }
    const again = await shared.app.api(`/sessions/${sessionId}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    const listed = (await shared.app.api("/sessions"))
      .json<{ items: Array<{ id: string }> }>()
      .items.map((item) => item.id);
    expect(listed).not.toContain(sessionId);
    expect(listed).toContain(other);
    expect(await rowsMentioning(shared.app, sessionId)).toEqual({ tables: [], count: 0 });
    // The other session is untouched.
    expect((await shared.app.api(`/sessions/${other}`)).status).toBe(200);
  });
});

/**
 * Rows of any table with a `session` column (and of `sessions` itself) that mention the id in
 * any column, read straight from the database (either backend).
 */
async function rowsMentioning(
  app: DaemonHarness,
  sessionId: string,
): Promise<{ tables: string[]; count: number }> {
  const found: string[] = [];
  let count = 0;
  for (const table of await app.tableNames()) {
    const rows = await app.sql<Record<string, unknown>>(`SELECT * FROM "${table}"`);
    if (table !== "sessions" && !(rows.length === 0 || "session" in rows[0]!)) continue;
    const mentioning = rows.filter((row) =>
      Object.values(row).some((value) => String(value).includes(sessionId)),
    );
    if (mentioning.length > 0) found.push(table);
    count += mentioning.length;
  }
  return { tables: found.sort(), count };
}
