/**
 * A session created with its first input (`input` of `PUT /sessions/{id}`): the input admitted
 * and its turn started in the creation's own commit, the 201 with its receipt and a cursor from
 * which the stream tells the whole turn; a retried creation is 412 and runs nothing twice; an
 * input refused creates no session; and a SIGKILL right after the 201 loses neither. On both
 * storage backends (on PostgreSQL the same commit takes the session's lease, and the actor is
 * built under it); one daemon per backend, each test with its own sessions.
 */
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hang, text } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import { type DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { startFixture } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface Created {
  id: string;
  cursor: { generation: string; sequence: number };
  status: { phase: string; run_id: string | null };
  input_order: number;
  pending_inputs: unknown[];
  history: { items: Array<{ kind: string }> };
  input?: {
    id: string;
    acceptance_order: number;
    delivery: string;
    transcript_position: number | null;
    turn: { id: string; state: string } | null;
    client_id: string | null;
  };
  shell?: { mode: string };
}

describe.each(databaseKinds)("a session created with its first input ($name)", ({ database }) => {
  let provider: FakeProvider;
  let app: DaemonHarness;

  beforeAll(async () => {
    ({ provider, app } = await startFixture({}, database));
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  beforeEach(() => {
    provider.reset();
    provider.script = () => text("first answer");
  });

  function create(id: string, input: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return app.api(`/sessions/${id}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace, ...extra, input },
    });
  }

  it("admits the input and starts its turn with the session; the stream from the 201's cursor tells the whole turn", async () => {
    const id = uuidv7();
    const inputId = uuidv7();
    const response = await create(id, {
      id: inputId,
      kind: "message",
      text: "hello there",
      client_id: "first-input-test",
    });
    expect(response.status).toBe(201);
    const created = response.json<Created>();
    expect(created.input).toMatchObject({ id: inputId, acceptance_order: 1, client_id: "first-input-test" });
    expect(created.shell?.mode).toMatch(/^(sandboxed|unconfined|off)$/);
    // The receipt carries the turn; the snapshot shows the session as created, before the input.
    expect(created.input).toMatchObject({
      delivery: "committed",
      transcript_position: 1,
      turn: { state: "running" },
    });
    expect(created.status.phase).toBe("idle");
    expect(created.pending_inputs).toEqual([]);
    expect(created.history.items.map((entry) => entry.kind)).not.toContain("user");

    const stream = await app.openStream(id, {
      after: { generation: created.cursor.generation, cursor: created.cursor.sequence },
    });
    try {
      const frames = await stream.readUntil((event) => event.type === "turn_completed");
      const events = eventsOf(frames);
      expect(frames[0]!.batch.snapshot).toBeUndefined();
      const completed = events.find((event) => event.type === "turn_completed")?.data;
      expect(completed).toMatchObject({ state: "completed", input_ids: [inputId] });
      const text = events.filter((event) => event.type === "text").map((event) => event.data.text);
      expect(text.join("")).toBe("first answer");
      // The snapshot and the stream after its cursor tell the user's entry once between them.
      const userEvents = events.filter(
        (event) => event.type === "message" && (event.data.entry as { kind: string }).kind === "user",
      );
      const userShown = created.history.items.filter((entry) => entry.kind === "user");
      expect(userEvents.length + userShown.length).toBe(1);
      // What a creation followed by the input's own PUT would have told, in that order.
      const turnId = created.input!.turn!.id;
      expect(completed?.run_id).toBe(turnId);
      const types = events.map((event) => event.type);
      expect(types.slice(0, 5)).toEqual(["input", "message", "committed", "input", "status"]);
      expect(events[0]!.data.input).toMatchObject({ id: inputId, delivery: "pending", turn: null });
      expect(events[3]!.data.input).toMatchObject({ id: inputId, turn: { id: turnId, state: "running" } });
      expect(events[4]!.data).toMatchObject({ phase: "running", run_id: turnId });
    } finally {
      stream.close();
    }
    const receipt = await app.receipt(id, inputId);
    expect(receipt.turn?.state).toBe("completed");
    const history = await app.history(id);
    expect(history.items.map((entry) => [entry.kind, entry.input_id ?? null])).toEqual([
      ["user", inputId],
      ["assistant", null],
    ]);
    const snapshot = (await app.api(`/sessions/${id}?tail=0`)).json<Created>();
    expect(snapshot.input_order).toBe(1);
    expect(provider.requests).toHaveLength(1);
  });

  it("answers a retried creation with the same input 412, as any repeated creation, and runs nothing twice", async () => {
    const id = uuidv7();
    const input = { id: uuidv7(), kind: "message", text: "only once" };
    expect((await create(id, input)).status).toBe(201);
    const again = await create(id, input);
    expect(again.status).toBe(412);
    expect(again.json<{ code: string }>().code).toBe("precondition_failed");
    await app.idle(id);
    expect((await app.history(id)).items.map((entry) => entry.kind)).toEqual(["user", "assistant"]);
    expect(provider.requests).toHaveLength(1);
    // The input is the session's: its own route answers the same receipt for the same intent.
    const put = await app.api(`/sessions/${id}/inputs/${input.id}`, {
      method: "PUT",
      body: { kind: "message", text: "only once" },
    });
    expect(put.status).toBe(202);
    expect(put.json<{ acceptance_order: number }>().acceptance_order).toBe(1);
    // `submitted` is the session as asked for; the input is kept as an input.
    const snapshot = (await app.api(`/sessions/${id}?tail=0`)).json<{ creation: unknown }>();
    expect(snapshot.creation).toEqual({ kind: "new", submitted: { kind: "new", workspace: app.workspace } });
  });

  it("refuses a bad first input with 400 and creates no session (nor remembers a refused creation)", async () => {
    const refusals: Array<{ input: Record<string, unknown>; code: string; says: string }> = [
      { input: { id: uuidv7(), kind: "message", text: "  " }, code: "message_empty", says: "non-blank" },
      { input: { id: "not-an-id", kind: "message", text: "hi" }, code: "invalid_request", says: "input id" },
      {
        input: { id: uuidv7(), kind: "message", text: "hi", client_id: "schedule:0190f5c8" },
        code: "invalid_request",
        says: "schedule:",
      },
      {
        input: { id: uuidv7(), kind: "message", text: "hi", client_id: "task:0190f5c8" },
        code: "invalid_request",
        says: "task:",
      },
      { input: { id: uuidv7(), kind: "message" }, code: "invalid_request", says: "" },
    ];
    for (const refusal of refusals) {
      const id = uuidv7();
      const response = await create(id, refusal.input);
      expect(response.status, JSON.stringify(refusal.input)).toBe(400);
      const problem = response.json<{ code: string; detail: string }>();
      expect(problem.code).toBe(refusal.code);
      expect(problem.detail).toContain(refusal.says);
      const read = await app.api(`/sessions/${id}`);
      expect(read.status).toBe(404);
      expect(read.json<Record<string, unknown>>().rejected_creation).toBeUndefined();
    }
    expect(provider.requests).toHaveLength(0);
  });

  it("creates nothing when the session part is refused: no input is admitted either", async () => {
    const id = uuidv7();
    const inputId = uuidv7();
    const response = await create(
      id,
      { id: inputId, kind: "message", text: "hi" },
      { workspace: "/no/such/dir" },
    );
    expect(response.status).toBe(400);
    expect((await app.api(`/sessions/${id}/inputs/${inputId}`)).status).toBe(404);
    // The input id is still free: the same creation in a real workspace succeeds with it.
    expect((await create(id, { id: inputId, kind: "message", text: "hi" })).status).toBe(201);
    await app.idle(id);
  });

  it("keeps the session and its input across a SIGKILL right after the 201; the turn is recovered and answers", async () => {
    let killed = false;
    provider.script = () => (killed ? text("recovered answer") : hang());
    const id = uuidv7();
    const inputId = uuidv7();
    const response = await create(id, { id: inputId, kind: "message", text: "survive the crash" });
    expect(response.status).toBe(201);
    // Its turn started in the creation's commit (and, on PostgreSQL, under the lease it took).
    expect(response.json<Created>().input?.turn?.state).toBe("running");
    killed = true;
    await app.kill();
    await app.boot();
    await app.idle(id);
    const receipt = await app.receipt(id, inputId);
    expect(receipt).toMatchObject({ id: inputId, acceptance_order: 1, delivery: "committed" });
    const history = await app.history(id);
    expect(history.items[0]).toMatchObject({ kind: "user", input_id: inputId });
    expect(history.items.at(-1)?.kind).toBe("assistant");
    expect(JSON.stringify(provider.lastRequest.body)).toContain("survive the crash");
  });
});
