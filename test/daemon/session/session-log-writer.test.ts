/**
 * The session log writer alone, against a small port on real SQLite storage: what a commit
 * publishes and when, held entries, the written/durable moments of a commit, and a log found
 * changed behind its back.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { PlacedEntry } from "../../../src/log/session-writer.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { type TestPort, testPort } from "./test-port.js";

describe("the session log writer", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  async function fresh(): Promise<TestPort> {
    env = await testPort();
    return env;
  }

  it("publishes a commit's history entries and then `committed` once it is durable, and tells its observers", async () => {
    const { port, events, kinds } = await fresh();
    const observed: number[][] = [];
    port.log.observe({ committed: (placed) => observed.push(placed.map((item) => item.position)) });
    const placed = await port.log.commit([{ kind: "user_input", ts: 1, item: userMessage("Hi") }]);
    expect(placed.map((item) => item.position)).toEqual([1]);
    expect(kinds()).toEqual(["message:user", "committed"]);
    expect(events.at(-1)?.data).toEqual({ high_water: 1 });
    expect(observed).toEqual([[1]]);
    expect(port.log.state.history).toEqual([userMessage("Hi")]);
  });

  it("tells a commit's caller it is written (the replay holds it, no client has heard of it) before it is durable", async () => {
    const { port, kinds } = await fresh();
    const order: string[] = [];
    const commit = port.log.begin([{ kind: "user_input", ts: 1, item: userMessage("Hi") }]);
    const written = commit.written.then(() => {
      order.push("written");
      expect(port.log.state.history).toEqual([userMessage("Hi")]);
      expect(kinds()).toEqual([]);
    });
    const durable = commit.durable.then(() => order.push("durable"));
    await Promise.all([written, durable]);
    expect(order).toEqual(["written", "durable"]);
    expect(kinds()).toEqual(["message:user", "committed"]);
  });

  it("lets I/O its caller starts on `written` for the next check phase leave before it tells of the commit, even when the flush ended first", async () => {
    const { port, kinds } = await fresh();
    const commit = port.log.begin([{ kind: "user_input", ts: 1, item: userMessage("Hi") }]);
    const seenAtSend: string[][] = [];
    void commit.written.then(() => {
      // As a turn does: building its model request takes a while (the flush ends meanwhile),
      // and undici writes it on a reused keep-alive socket only in the next check phase.
      const until = performance.now() + 30;
      while (performance.now() < until);
      setImmediate(() => seenAtSend.push(kinds()));
    });
    await commit.durable;
    expect(seenAtSend).toEqual([[]]);
    expect(kinds()).toEqual(["message:user", "committed"]);
  });

  it("announces what its caller asks before any event of the commit", async () => {
    const { port, events, kinds } = await fresh();
    await port.log.commit(
      [{ kind: "user_input", ts: 1, item: userMessage("Hi") }],
      {},
      {
        announce: () => events.push({ type: "input", data: null }),
      },
    );
    expect(kinds()).toEqual(["input", "message:user", "committed"]);
  });

  it("writes held entries first in the next commit, whatever it is, and not before", async () => {
    const { port, storage, sessionId, kinds } = await fresh();
    port.log.hold([{ kind: "assistant_items", ts: 1, items: [assistantMessage("Hello")] }]);
    expect(port.log.holding).toBe(true);
    expect(port.log.state.history).toEqual([]);
    expect((await storage.readLog(sessionId)).length).toBe(1);
    const placed = await port.log.commit([{ kind: "approval_policy_changed", ts: 2, policy: null }]);
    // Where the commit's own entries went: after the held one.
    expect(placed.map((item) => item.position)).toEqual([2]);
    expect(port.log.holding).toBe(false);
    const stored = (await storage.readLog(sessionId)).map(({ entry }) => entry.kind);
    expect(stored).toEqual(["session_start", "assistant_items", "approval_policy_changed"]);
    expect(kinds()).toEqual(["message:assistant", "committed"]);
  });

  it("leaves what is held while a commit is in flight for the next commit", async () => {
    const { port, storage, sessionId } = await fresh();
    const first = port.log.begin([{ kind: "user_input", ts: 1, item: userMessage("one") }]);
    port.log.hold([{ kind: "assistant_items", ts: 2, items: [assistantMessage("two")] }]);
    await first.durable;
    expect(port.log.holding).toBe(true);
    expect((await storage.readLog(sessionId)).length).toBe(2);
    const seen: PlacedEntry[][] = [];
    port.log.observe({ committed: (placed) => seen.push([...placed]) });
    await port.log.commit([], { activityAt: 3 });
    await port.log.commit([{ kind: "user_input", ts: 3, item: userMessage("three") }]);
    expect(seen.flat().map(({ entry }) => entry.kind)).toEqual(["assistant_items", "user_input"]);
    expect(port.log.state.history).toEqual([
      userMessage("one"),
      assistantMessage("two"),
      userMessage("three"),
    ]);
  });

  it("finds a log another writer appended to corrupt, says so once, and writes nothing more", async () => {
    const { port, storage, sessionId } = await fresh();
    const corrupted: string[] = [];
    port.log.observe({ corrupted: (error) => corrupted.push(error.message) });
    const other = storage.writerFrom(sessionId, await storage.readLog(sessionId));
    await other.append([{ kind: "user_input", ts: 1, item: userMessage("behind its back") }], {});
    await expect(port.log.checkIntact()).rejects.toThrow(
      /head is not the entry this daemon wrote last|ends at/,
    );
    expect(corrupted).toHaveLength(1);
    expect(port.log.corrupt).not.toBeNull();
    await expect(port.log.commit([{ kind: "approval_policy_changed", ts: 2, policy: null }])).rejects.toBe(
      port.log.corrupt,
    );
    expect(() => port.log.hold([])).toThrow();
    expect((await storage.readLog(sessionId)).length).toBe(2);
    expect(corrupted).toHaveLength(1);
  });

  it("rejects `written` as well as `durable` when the commit fails before it is written", async () => {
    const { port, storage, sessionId } = await fresh();
    const other = storage.writerFrom(sessionId, await storage.readLog(sessionId));
    await other.append([{ kind: "user_input", ts: 1, item: userMessage("first") }], {});
    const commit = port.log.begin([{ kind: "user_input", ts: 2, item: userMessage("second") }]);
    await expect(commit.written).rejects.toThrow();
    await expect(commit.durable).rejects.toThrow();
    // Another writer's append makes the session corrupt.
    expect(port.log.corrupt?.message).toMatch(/another writer appended/);
  });
});
