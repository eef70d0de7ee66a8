/**
 * One turn's start (turn.ts) whose commit is written, so that its model request goes out while
 * the commit is flushed, but never becomes durable: the request is aborted and no client hears
 * of the turn.
 */
import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import type { StoredSessionWriter } from "../../../src/daemon/storage/session-storage.js";
import { GroupCommitFailedError } from "../../../src/log/errors.js";
import { WalSyncFailedError } from "../../../src/log/wal-sync.js";
import { unnamedSource } from "../../support/input-source.js";
import { MockLlmClient, mockHang } from "../../support/mock-llm-client.js";
import { type TestPort, testPort } from "../session/test-port.js";
import { testScheduler } from "./test-scheduler.js";

/** A writer whose appends are written (the store commits them) but whose flush fails once `fail` is called. */
function flushFailingWriter(stored: StoredSessionWriter, flushFails: Promise<void>): StoredSessionWriter {
  return {
    sessionId: stored.sessionId,
    get headHash() {
      return stored.headHash;
    },
    get position() {
      return stored.position;
    },
    get state() {
      return stored.state;
    },
    placed: (entries) => stored.placed(entries),
    append: async (entries, writes, options) => {
      await stored.append(entries, writes, options);
      await flushFails;
      // What the group commit rejects with when WalSync's fsync fails.
      throw new GroupCommitFailedError(
        stored.sessionId,
        new WalSyncFailedError("skein.sqlite-wal", new Error("EIO")),
      );
    },
  };
}

/** Wait (briefly) until `condition` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error("the condition never held");
}

describe("a turn whose start is written but never durable", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  it("aborts the model request it sent while the start was flushed, and no client hears of the turn", async () => {
    const client = new MockLlmClient([mockHang()]);
    let fail: () => void = () => undefined;
    const flushFails = new Promise<void>((resolve) => {
      fail = resolve;
    });
    env = await testPort(
      () => client,
      [],
      (stored) => flushFailingWriter(stored, flushFails),
    );
    const { port } = env;
    const turns = testScheduler(env);
    // As the actor does: the admission runs in the mailbox.
    const receipt = port.serialize(() =>
      turns.admitAndStart(uuidv7(), { kind: "message", text: "Hi" }, unnamedSource),
    );
    await until(() => client.calls === 1);
    expect(client.signals[0]!.aborted).toBe(false);
    fail();
    // A refused admission: the actor admits the input the usual way.
    expect(await receipt).toBeNull();
    expect(client.signals[0]!.aborted).toBe(true);
    expect(turns.busy).toBe(false);
    await turns.turnSettled();
    await port.serialize(() => undefined);
    expect(env.events).toEqual([]);
  });
});
