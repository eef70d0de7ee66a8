/**
 * The plain-HTTP consumer flow, as a program without any Skein code uses the API: create →
 * durable, idempotent input → SSE stream from the create snapshot's cursor with contiguous
 * sequences until `turn_completed` → reconnect without a reset → history with the input id →
 * receipt committed; an EventSource-style client resuming with `Last-Event-ID`; and two watchers
 * seeing the same events (thinking and usage included). One daemon for the file; each test uses
 * its own session.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { deliver, reasoning, text } from "../support/fake-provider/reply.js";
import { databaseKinds, type HistoryPage, type Receipt, type StreamPage } from "./support/daemon-harness.js";
import { entryText, fixtureModel, fixtureProfile, gate, useSharedFixture } from "./support/fixture.js";
import { checkContiguous, eventsOf } from "./support/sse-client.js";

describe.each(databaseKinds)("a plain HTTP consumer ($name)", ({ database }) => {
  const shared = useSharedFixture({ database });

  it("creates a session, sends an idempotent input, streams the turn contiguously and finds it in history", async () => {
    // The answer waits until the stream is open, and is slow enough to span several frames.
    const held = gate();
    shared.provider.script = async () => {
      await held.promise;
      return deliver(text("The answer is forty-two, as always."), { delayMs: 15 });
    };

    // Create: 201, Location, and a snapshot a client can start from.
    const sessionId = uuidv7();
    const created = await shared.app.api(`/sessions/${sessionId}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: shared.app.workspace, name: "consumer" },
    });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/sessions/${sessionId}`);
    expect(created.headers["content-type"]).toBe("application/json");
    const snapshot = created.json<StreamPage["snapshot"] & Record<string, unknown>>();
    expect(snapshot).toMatchObject({
      id: sessionId,
      name: "consumer",
      workspace: shared.app.workspace,
      parent_id: null,
      provider_profile: fixtureProfile,
      model: fixtureModel,
      status: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
      pending_inputs: [],
      input_order: 0,
      preview: { text: "", transcript_count: 0, truncated: false },
      history: { items: [], older: null, newer: null },
      // The creation request, as sent, so a client can tell the session is the one it asked for.
      creation: {
        kind: "new",
        submitted: { kind: "new", workspace: shared.app.workspace, name: "consumer" },
      },
    });
    expect(Date.parse(snapshot.created_at as string)).not.toBeNaN();
    expect(Date.parse(snapshot.activity_at as string)).not.toBeNaN();
    const cursor = snapshot.cursor as { generation: string; sequence: number };
    expect(cursor.generation).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Number.isInteger(cursor.sequence)).toBe(true);

    // Input: 202 with a receipt; the same PUT again is the same receipt; another body conflicts.
    const inputId = uuidv7();
    const body = { kind: "message", text: "What is the answer?" };
    const accepted = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body,
    });
    expect(accepted.status).toBe(202);
    const receipt = accepted.json<Receipt>();
    expect(receipt).toMatchObject({
      id: inputId,
      session_id: sessionId,
      kind: "message",
      admission: "accepted",
      acceptance_order: 1,
    });
    expect(["pending", "committed"]).toContain(receipt.delivery);
    const again = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, { method: "PUT", body });
    expect(again.status).toBe(202);
    const repeated = again.json<Receipt>();
    expect(repeated.id).toBe(inputId);
    expect(repeated.acceptance_order).toBe(receipt.acceptance_order);
    expect(repeated.accepted_at).toBe(receipt.accepted_at);
    const conflict = await shared.app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "message", text: "Something else entirely" },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.headers["content-type"]).toBe("application/problem+json");
    expect(conflict.json().code).toBe("input_conflict");

    // Stream from the create cursor: a replay (no reset), contiguous, until turn_completed.
    const stream = await shared.app.openStream(sessionId, {
      after: { generation: cursor.generation, cursor: cursor.sequence },
    });
    const frames = [await stream.next()];
    held.open();
    frames.push(...(await stream.readUntil((event) => event.type === "turn_completed")));
    stream.close();
    const last = checkContiguous(frames, cursor.sequence);
    for (const frame of frames) {
      expect(frame.batch.generation).toBe(cursor.generation);
      expect(frame.id).toBe(`${cursor.generation}.${frame.batch.cursor}`);
      expect(frame.batch).not.toHaveProperty("snapshot");
    }
    const events = eventsOf(frames);
    const types = events.map((event) => event.type);
    expect(types).toContain("input");
    expect(types).toContain("text");
    expect(types.filter((type) => type === "message").length).toBeGreaterThanOrEqual(2);
    const streamed = events
      .filter((event) => event.type === "text")
      .map((event) => String(event.data.text))
      .join("");
    expect(streamed).toBe("The answer is forty-two, as always.");
    const completed = events.find((event) => event.type === "turn_completed");
    expect(completed?.data).toMatchObject({ state: "completed", input_ids: [inputId] });

    // Reconnect with the last cursor: still the same generation, no reset, nothing repeated.
    const resumed = await shared.app.openStream(sessionId, {
      after: { generation: cursor.generation, cursor: last },
    });
    const first = await resumed.next();
    resumed.close();
    expect(first.batch.generation).toBe(cursor.generation);
    expect(first.batch.events.map((event) => event.type)).not.toContain("reset");
    expect(first.batch).not.toHaveProperty("snapshot");
    checkContiguous([first], last);

    // History: the user entry carries the input id, then the assistant's answer.
    const history = await shared.app.history(sessionId);
    const user = history.items.find((entry) => entry.kind === "user");
    expect(user?.input_id).toBe(inputId);
    expect(user === undefined ? "" : entryText(user)).toBe("What is the answer?");
    const assistant = history.items.find((entry) => entry.kind === "assistant");
    expect(assistant === undefined ? "" : entryText(assistant)).toBe("The answer is forty-two, as always.");
    expect(assistant?.turn_id).toBe(completed?.data.run_id);

    // Receipt: committed by a completed turn, at the user entry's position.
    const final = await shared.app.receipt(sessionId, inputId);
    expect(final.delivery).toBe("committed");
    expect(final.transcript_position).toBe(user?.position);
    expect(final.turn?.state).toBe("completed");
    expect(final.turn?.id).toBe(completed?.data.run_id);
    expect(final.turn?.ended_at).not.toBeNull();

    // The preview shows the first prompt, the same in the snapshot and in the collection.
    const after = (await shared.app.api(`/sessions/${sessionId}?tail=0`)).json<{
      preview: unknown;
      input_order: number;
    }>();
    expect(after.preview).toEqual({ text: "What is the answer?", transcript_count: 2, truncated: false });
    expect(after.input_order).toBe(1);
    const listed = (await shared.app.api("/sessions")).json<{
      items: Array<{ id: string; preview: unknown }>;
    }>().items;
    expect(listed.find((item) => item.id === sessionId)?.preview).toEqual(after.preview);

    // The idempotent re-PUT ran nothing twice.
    expect(shared.provider.requests).toHaveLength(1);
  });

  it("resumes with Last-Event-ID like an EventSource: only later events, none lost, none repeated", async () => {
    shared.provider.script = () => deliver(text("one two three four five six seven eight"), { delayMs: 20 });
    const sessionId = await shared.app.createSession();

    // The initial attach: a reset with the snapshot, under an id the client remembers.
    const initial = await shared.app.openStream(sessionId);
    const reset = await initial.next();
    expect(reset.batch.events[0]?.type).toBe("reset");
    expect(reset.batch.events[0]?.data).toEqual({ reason: "initial" });
    expect(reset.id).toBe(`${reset.batch.generation}.${reset.batch.cursor}`);

    // The connection drops in the middle of a turn, after the first streamed text.
    const inputId = uuidv7();
    await shared.app.prompt(sessionId, "count to eight", inputId);
    await initial.readUntil((event) => event.type === "text");
    initial.close();
    const seen = eventsOf(initial.frames.slice(1));
    const lastEventId = initial.lastEventId;
    expect(lastEventId).toBeDefined();

    // Reconnect as a browser would: the Last-Event-ID header, no query parameters.
    const resumed = await shared.app.openStream(sessionId, { lastEventId: lastEventId! });
    const rest = await resumed.readUntil((event) => event.type === "turn_completed");
    resumed.close();
    expect(rest[0]!.batch.generation).toBe(reset.batch.generation);
    expect(rest[0]!.batch.events.map((event) => event.type)).not.toContain("reset");
    checkContiguous([...initial.frames.slice(1), ...rest], reset.batch.cursor);
    const all = [...seen, ...eventsOf(rest)];
    const answer = all
      .filter((event) => event.type === "text")
      .map((event) => String(event.data.text))
      .join("");
    expect(answer).toBe("one two three four five six seven eight");
    const sequences = all.map((event) => event.sequence);
    expect(new Set(sequences).size).toBe(sequences.length);
    await shared.app.idle(sessionId);

    // A Last-Event-ID from the end of the turn gets nothing already seen.
    const caughtUp = await shared.app.openStream(sessionId, { lastEventId: resumed.lastEventId! });
    const tail = await caughtUp.next();
    caughtUp.close();
    const resumedAt = Number(resumed.lastEventId!.split(".")[1]);
    checkContiguous([tail], resumedAt);
    expect(tail.batch.events.map((event) => event.type)).not.toContain("turn_completed");

    const history: HistoryPage = await shared.app.history(sessionId);
    expect(history.items.filter((entry) => entry.kind === "user").map((entry) => entry.input_id)).toEqual([
      inputId,
    ]);
  });

  it("streams the same events to every watcher, thinking included, and counts usage", async () => {
    shared.provider.script = () =>
      deliver(
        reasoning("Let me think this through.", text("Forty-two.", { usage: { input: 12, output: 7 } })),
        {
          delayMs: 10,
        },
      );
    const sessionId = await shared.app.createSession();
    const watchers = [await shared.app.openStream(sessionId), await shared.app.openStream(sessionId)];
    const starts = await Promise.all(watchers.map((watcher) => watcher.next()));
    expect(starts[0]!.batch.generation).toBe(starts[1]!.batch.generation);
    expect(starts[0]!.batch.cursor).toBe(starts[1]!.batch.cursor);
    await shared.app.prompt(sessionId, "think first");
    const streams = await Promise.all(
      watchers.map((watcher) => watcher.readUntil((event) => event.type === "turn_completed")),
    );
    for (const watcher of watchers) watcher.close();
    const [first, second] = streams.map((frames) => eventsOf(frames));
    checkContiguous(streams[0]!, starts[0]!.batch.cursor);
    checkContiguous(streams[1]!, starts[1]!.batch.cursor);
    // Frames may be cut differently; the events are the same.
    expect(second).toEqual(first);

    const thinking = first!
      .filter((event) => event.type === "thinking")
      .map((event) => String(event.data.text))
      .join("");
    expect(thinking).toBe("Let me think this through.");
    const usage = first!.find((event) => event.type === "usage");
    expect(usage?.data).toMatchObject({
      model: fixtureModel,
      prompt_tokens: 12,
      completion_tokens: 7,
      total_tokens: 19,
    });

    const history = await shared.app.history(sessionId);
    expect(history.items.map((entry) => entry.kind)).toEqual(["user", "thinking", "assistant"]);
    expect(entryText(history.items[1]!)).toBe("Let me think this through.");
    // Seven deltas 10 ms apart, then the answer: the model thought for at least ~60 ms. History
    // is read from the stored log, so the duration survives a restart.
    const thought = history.items[1]!.thinking_duration_ms;
    expect(thought).toBeGreaterThanOrEqual(50);
    expect(thought).toBeLessThan(10_000);
    expect(history.items[2]).not.toHaveProperty("thinking_duration_ms");
    const streamed = first!.find(
      (event) => event.type === "message" && (event.data.entry as { kind: string }).kind === "thinking",
    );
    const streamedEntry = streamed?.data.entry as { thinking_duration_ms?: number } | undefined;
    expect(streamedEntry?.thinking_duration_ms).toBe(thought);
    const snapshot = (await shared.app.api(`/sessions/${sessionId}?tail=0`)).json<{ usage: unknown }>();
    expect(snapshot.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 7,
      cached_prompt_tokens: 0,
      total_tokens: 19,
    });
  });
});
