/**
 * The notification outbox through the storage port on both backends: rows queued with a commit's
 * row writes are claimed once per lease, settled only by their claimer (delivered: gone; retry:
 * due again later; given up: never claimed again, and deleted by a later give-up once older than
 * it keeps them); the next due time (what the deliverer sleeps until) follows retries, claims
 * and given-up rows; and on PostgreSQL two nodes claiming at once
 * never get the same row (`FOR UPDATE SKIP LOCKED`).
 */
import { describe, expect, it } from "vitest";
import type { NewNotification } from "../../../src/daemon/storage/outbox-table.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import { createPgSchema } from "../../support/pg-schema.js";
import { freshPgSessionStorage, storageBackends } from "./storage-backends.js";

const backends = storageBackends("skein_outbox");

function notification(n: number, createdAt = 1_000): NewNotification {
  const id = `evt_${String(n).padStart(3, "0")}`;
  return {
    id,
    targetUrl: "https://h.example/x",
    sessionId: "s1",
    event: "turn_completed",
    body: `{"id":"${id}"}`,
    createdAt,
  };
}

describe.each(backends)("the notification outbox ($name)", (backend) => {
  it("hands a due row to one claimer per lease, and lets only that claimer settle it", async () => {
    const storage = await backend.open();
    await storage.writeRows("s1", { notifications: [notification(1), notification(2, 5_000)] });
    const first = await storage.outbox.claim("a", 2_000, 12_000, 10);
    expect(first).toEqual([{ ...notification(1), attempts: 0 }]);
    expect(await storage.outbox.claim("b", 3_000, 13_000, 10)).toEqual([]);
    // Another claimer's settlement is no settlement.
    await storage.outbox.settle(first[0]!, "b", { kind: "delivered" });
    expect(await storage.outbox.claim("b", 12_001, 22_000, 1)).toEqual([{ ...notification(1), attempts: 0 }]);
    await storage.outbox.settle(first[0]!, "b", { kind: "retry", at: 30_000, error: "503" });
    expect((await storage.outbox.claim("c", 29_999, 40_000, 10)).map((row) => row.id)).toEqual(["evt_002"]);
    const again = await storage.outbox.claim("c", 30_000, 40_000, 10);
    expect(again).toEqual([{ ...notification(1), attempts: 1 }]);
    await storage.outbox.settle(again[0]!, "c", {
      kind: "gave_up",
      at: 30_001,
      error: "refused",
      forgetBefore: 0,
    });
    await storage.outbox.settle({ ...notification(2, 5_000), attempts: 0 }, "c", { kind: "delivered" });
    expect(await storage.outbox.claim("d", 99_000_000, 99_000_001, 10)).toEqual([]);
  });

  it("forgets a given-up row when a later give-up finds it older than the rows it keeps", async () => {
    const storage = await backend.open();
    const giveUp = async (n: number, at: number, forgetBefore: number) => {
      await storage.writeRows("s1", { notifications: [notification(n, at)] });
      const [row] = await storage.outbox.claim("a", at, at + 10_000, 1);
      expect(row?.id).toBe(notification(n).id);
      await storage.outbox.settle(row!, "a", { kind: "gave_up", at, error: "down", forgetBefore });
    };
    // The same event queued again fails on its key while its given-up row is still there.
    const queueAgain = (n: number, at: number) =>
      storage.writeRows("s1", { notifications: [notification(n, at)] });
    await giveUp(1, 1_000, 0);
    await giveUp(2, 2_000, 1_000);
    await expect(queueAgain(1, 3_000)).rejects.toThrow();
    await giveUp(3, 9_000, 2_001);
    await queueAgain(1, 10_000);
    await queueAgain(2, 10_000);
    await expect(queueAgain(3, 10_000)).rejects.toThrow();
    const due = await storage.outbox.claim("b", 10_000, 20_000, 10);
    expect(due.map((row) => row.id).sort()).toEqual(["evt_001", "evt_002"]);
  });

  it("looks for due rows without a write: nothing due takes no transaction", async () => {
    const storage = await backend.open();
    await storage.writeRows("s1", { notifications: [notification(1, 50_000)] });
    const before = storage.commitStats().transactions;
    for (let poll = 0; poll < 5; poll++)
      expect(await storage.outbox.claim("a", 2_000 + poll, 12_000, 10)).toEqual([]);
    expect(storage.commitStats().transactions).toBe(before);
    expect((await storage.outbox.claim("a", 50_000, 60_000, 10)).map((row) => row.id)).toEqual(["evt_001"]);
    expect(storage.commitStats().transactions).toBe(before + 1);
  });

  it("says when the next row becomes claimable: its attempt's time, or just after a claim on it lapses", async () => {
    const storage = await backend.open();
    expect(await storage.outbox.nextDue()).toBeNull();
    await storage.writeRows("s1", { notifications: [notification(1, 4_000), notification(2, 9_000)] });
    expect(await storage.outbox.nextDue()).toBe(4_000);
    const [first] = await storage.outbox.claim("a", 5_000, 20_000, 1);
    expect(first?.id).toBe("evt_001");
    // The claimed row is held until 20 000; the other is due at 9 000.
    expect(await storage.outbox.nextDue()).toBe(9_000);
    const [second] = await storage.outbox.claim("a", 9_000, 15_000, 1);
    expect(await storage.outbox.nextDue()).toBe(15_001);
    await storage.outbox.settle(second!, "a", { kind: "retry", at: 30_000, error: "503" });
    expect(await storage.outbox.nextDue()).toBe(20_001);
    await storage.outbox.settle(first!, "a", {
      kind: "gave_up",
      at: 21_000,
      error: "refused",
      forgetBefore: 0,
    });
    expect(await storage.outbox.nextDue()).toBe(30_000);
    expect(await storage.outbox.claim("b", 29_999, 40_000, 10)).toEqual([]);
    expect((await storage.outbox.claim("b", 30_000, 40_000, 10)).map((row) => row.id)).toEqual(["evt_002"]);
  });
});

describe("the notification outbox on a PostgreSQL cluster", () => {
  it("never hands one row to two nodes claiming at once", async () => {
    const schema = await createPgSchema("skein_outbox_race");
    try {
      const one = await freshPgSessionStorage(schema);
      const two = new PgSessionStorage(await openPgDaemonDatabase(schema.url, { max: 4 }));
      try {
        const rows = Array.from({ length: 60 }, (_, n) => notification(n));
        await one.writeRows("s1", { notifications: rows });
        const claimed: Record<string, string[]> = { one: [], two: [] };
        const drain = async (name: "one" | "two", storage: PgSessionStorage) => {
          for (;;) {
            const got = await storage.outbox.claim(name, 2_000, 60_000, 3);
            if (got.length === 0) return;
            claimed[name]!.push(...got.map((row) => row.id));
          }
        };
        await Promise.all([drain("one", one), drain("two", two)]);
        const all = [...claimed.one!, ...claimed.two!].sort();
        expect(all).toEqual(rows.map((row) => row.id));
        expect(claimed.one!.length).toBeGreaterThan(0);
        expect(claimed.two!.length).toBeGreaterThan(0);
      } finally {
        await two.close();
      }
    } finally {
      await schema.drop();
    }
  });
});
