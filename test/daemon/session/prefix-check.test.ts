/**
 * History pages (and entry contents) of a loaded session restored from a signed state checkpoint,
 * before the log's prefix was verified and after: a page before the checkpoint is the page the
 * whole log gives, and what one read proved (or the background prefix check, once it passes)
 * makes the next page read about its own window plus a checkpoint spacing, not everything up to
 * the checkpoint (nor the whole log, as an entry's content was read).
 * Rows read are counted through the storage (real SQLite), not timed.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import { readLoggedEntryContent } from "../../../src/daemon/history/entry-content.js";
import { wholeLog } from "../../../src/daemon/history/history-log.js";
import { readHistoryPage } from "../../../src/daemon/history/history-page.js";
import type { SessionServices } from "../../../src/daemon/session/session-services.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { PositionedEntry } from "../../../src/log/entries.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { createTestSession, type TestServices, testServices } from "./session-services.js";

/** SQLite storage that counts the log rows its reads (ranges and whole logs) return. */
class RowCountingStorage extends SqliteSessionStorage {
  rows = 0;

  override async readLog(sessionId: string): Promise<PositionedEntry[]> {
    const entries = await super.readLog(sessionId);
    this.rows += entries.length;
    return entries;
  }

  override async readLogRange(sessionId: string, from: number, limit: number): Promise<PositionedEntry[]> {
    const entries = await super.readLogRange(sessionId, from, limit);
    this.rows += entries.length;
    return entries;
  }
}

/** The checkpoints' spacing (log/chain-checkpoints.ts) and a history page's read step (history-page.ts). */
const spacing = 256;
const readStep = 256;
/** A page of 100 reads one step each way; a step may reach a spacing past its end for its anchor. */
const pageBound = 2 * readStep + spacing;

describe("history pages of a session restored from a state checkpoint", () => {
  let env: TestServices | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  /**
   * A session of 10,000 entries (its state checkpoint written past 8,192 positions), loaded by a
   * fresh registry whose storage counts rows read; `info` hears the daemon's info logs.
   */
  async function restoredSession(info: (message: string) => void = () => undefined) {
    env = testServices(() => null);
    const signer = HeadSigner.generate();
    const first = new SessionRegistry({
      ...env.services,
      storage: new SqliteSessionStorage(env.db, { signer }),
    });
    const id = await createTestSession(first, env.workspace);
    await first.drain(1_000);
    const storage = new RowCountingStorage(env.db, { signer });
    const writer = storage.writerFrom(id, await storage.readLog(id));
    const ts = 1_000;
    for (let done = writer.position + 1; done < 10_000; done = writer.position + 1) {
      const count = Math.min(512, 10_000 - done);
      await writer.append(
        Array.from({ length: count }, (_, i) =>
          (done + i) % 2 === 0
            ? { kind: "user_input" as const, ts, item: userMessage(`q${done + i}`) }
            : { kind: "assistant_items" as const, ts, items: [assistantMessage(`a${done + i}`)] },
        ),
        {},
      );
    }
    const checkpoint = (await storage.restoreLog(id)).checkpoint;
    expect(checkpoint?.position).toBeGreaterThan(8_000);
    const logger = { ...env.services.logger, info: (_fields: object, message: string) => info(message) };
    const services: SessionServices = { ...env.services, storage, logger };
    const registry = new SessionRegistry(services);
    await registry.get(id);
    const whole = wholeLog(await storage.readLog(id));
    /** What `work` returns, and the rows it read. */
    const counted = async <T>(work: () => Promise<T>): Promise<{ value: T; rows: number }> => {
      storage.rows = 0;
      const value = await work();
      return { value, rows: storage.rows };
    };
    const request = { sessionId: id, secret: "test-secret", now: 1_000, limit: 100 };
    /** The page `options` asks for, the rows it read, and the same page from the whole log. */
    const page = async (options: { before?: number; next?: string }) => {
      const { value: served, rows } = await counted(async () =>
        readHistoryPage(await registry.historyLog(id), { ...request, ...options }),
      );
      return { served, rows, expected: await readHistoryPage(whole, { ...request, ...options }) };
    };
    /** An entry's content as the content route serves it, the rows it read, and the same from the whole log. */
    const content = async (entryId: string) => {
      const slice = { sessionId: id, entryId, part: 0, offset: 0, limit: 1_000 };
      const { value: served, rows } = await counted(async () =>
        readLoggedEntryContent(await registry.historyLog(id), slice),
      );
      return { served, rows, expected: await readLoggedEntryContent(whole, slice) };
    };
    return { registry, storage, page, content, checkpoint: checkpoint! };
  }

  it("serve a page before the checkpoint as the whole log gives it, and the next page older from what that read proved", async () => {
    const { page, checkpoint } = await restoredSession();
    const first = await page({ before: 5_000 });
    expect(first.served).toEqual(first.expected);
    expect(first.served.items).toHaveLength(100);
    // Nothing before the checkpoint was known: the first page chained its window up to it.
    expect(first.rows).toBeGreaterThan(checkpoint.position - 5_000);
    const next = await page({ next: first.served.older! });
    expect(next.served).toEqual(next.expected);
    expect(next.served.items).toHaveLength(100);
    expect(next.rows).toBeLessThanOrEqual(pageBound);
  });

  it("serve any page or entry content before the checkpoint at the cost of its window once the background prefix check passed", async () => {
    const logged: string[] = [];
    const { page, content } = await restoredSession((message) => logged.push(message));
    await vi.waitFor(() => expect(logged).toContain("the log's prefix verified"), {
      timeout: 30_000,
      interval: 50,
    });
    for (const before of [100, 2_000, 6_000]) {
      const { served, rows, expected } = await page({ before });
      expect(served).toEqual(expected);
      expect(rows).toBeLessThanOrEqual(pageBound);
    }
    for (const entryId of ["1000", "7001"]) {
      const { served, rows, expected } = await content(entryId);
      expect(served).toEqual(expected);
      expect(served.text).toContain(entryId);
      expect(rows).toBeLessThanOrEqual(spacing);
    }
  });
});
