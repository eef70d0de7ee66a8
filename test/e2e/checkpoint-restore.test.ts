/**
 * A session restored from its signed state checkpoint after a daemon restart, on both backends:
 * it serves the same snapshot and the next request holds the same context as before the restart,
 * while the log before the checkpoint (which the load did not read) is verified in the
 * background: a prefix row changed while the daemon was down marks the session corrupt as a
 * failed read does, and a forged checkpoint is refused at load.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import {
  compactionProfile,
  compactionScript,
  isSummaryRequest,
  scriptPrompt,
} from "./support/compaction-script.js";
import { type DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

interface Report {
  status: "verified" | "corrupt";
  problem: { position: number; reason: string } | null;
}

describe.each(databaseKinds)("restore from a state checkpoint ($name)", ({ database }) => {
  const fake = useFakeProvider();

  function daemon(): Promise<DaemonHarness> {
    return fake.daemon(
      {
        database,
        providers: {
          main: compactionProfile("chat_completions", fake.provider, { contextWindow: 1_000_000 }),
        },
      },
      compactionScript("chat_completions"),
    );
  }

  /** A session with turns, a manual compaction and a turn after it; the checkpoint's position. */
  async function compacted(app: DaemonHarness): Promise<{ id: string; at: number }> {
    const id = await app.createSession();
    for (let n = 0; n < 3; n++) await app.turn(id, scriptPrompt("chat", n, 200));
    expect((await app.api(`/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    await eventually("the compaction to end", async () => {
      const context = (await app.api(`/sessions/${id}?tail=0`)).json<{
        context: { compacting: boolean; last_compaction: unknown };
      }>().context;
      return context.compacting || context.last_compaction === null ? undefined : context;
    });
    await app.turn(id, scriptPrompt("chat", 3));
    const rows = await app.sql<{ position: number }>(
      "SELECT position FROM transcript_checkpoints WHERE session = ?",
      [id],
    );
    expect(rows).toHaveLength(1);
    return { id, at: Number(rows[0]!.position) };
  }

  /** The snapshot's parts that do not depend on the daemon's run (its stream cursor does). */
  async function snapshotOf(app: DaemonHarness, id: string): Promise<unknown> {
    const response = await app.api(`/sessions/${id}`);
    expect(response.status, response.text).toBe(200);
    const { cursor: _cursor, ...rest } = response.json<Record<string, unknown>>();
    return rest;
  }

  const lastModelRequest = () =>
    fake.provider.requests.filter((request) => !isSummaryRequest(request)).at(-1)!;

  it("serves the same snapshot after a restart and sends the same context in the next request", async () => {
    const app = await daemon();
    const { id } = await compacted(app);
    const context = (body: string) => (JSON.parse(body) as { messages: unknown[] }).messages;
    await app.turn(id, scriptPrompt("chat", 4));
    const sentBefore = context(lastModelRequest().rawBody);
    const before = await snapshotOf(app, id);
    await app.shutdown();
    await app.boot();
    // The context's size is measured by the provider's count of the last request, which a new
    // daemon has not seen yet (it estimates until its first request, restored or not).
    const {
      activity_at: _at,
      context: _size,
      ...after
    } = (await snapshotOf(app, id)) as Record<string, unknown>;
    const { activity_at: _before, context: _sizeBefore, ...expected } = before as Record<string, unknown>;
    expect(after).toEqual(expected);
    await app.turn(id, scriptPrompt("chat", 5));
    // The request after the restart starts with what the one before it sent.
    expect(context(lastModelRequest().rawBody).slice(0, sentBefore.length)).toEqual(sentBefore);
    const report = (await app.api(`/sessions/${id}/verify`)).json<Report>();
    expect(report.status).toBe("verified");
  });

  it("marks the session corrupt once the background check finds a prefix row changed while the daemon was down", async () => {
    const app = await daemon();
    const { id, at } = await compacted(app);
    await app.shutdown();
    const rows = await app.sql<{ position: number; entry: string }>(
      "SELECT position, entry FROM transcript WHERE session = ? AND kind = 'user_input' ORDER BY position LIMIT 1",
      [id],
    );
    const first = { position: Number(rows[0]!.position), entry: rows[0]!.entry };
    expect(first.position).toBeLessThan(at);
    const forged = first.entry.replace("prompt:chat:0", "prompt:chat:9");
    expect(forged).not.toBe(first.entry);
    await app.sql("UPDATE transcript SET entry = ? WHERE session = ? AND position = ?", [
      forged,
      id,
      first.position,
    ]);
    await app.boot();
    await eventually("the background check to mark the session corrupt", async () => {
      const snapshot = await app.api(`/sessions/${id}`);
      return snapshot.status === 500 ? snapshot : undefined;
    });
    const input = await app.api(`/sessions/${id}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "more" },
    });
    expect(input.status).toBe(500);
    expect(input.json()).toMatchObject({ code: "log_corrupt" });
    const report = (await app.api(`/sessions/${id}/verify`)).json<Report>();
    expect(report.status).toBe("corrupt");
    expect(report.problem!.position).toBe(first.position);
  });

  it("refuses at load a checkpoint whose state was changed behind the daemon", async () => {
    const app = await daemon();
    const { id } = await compacted(app);
    await app.shutdown();
    const rows = await app.sql<{ state: string }>(
      "SELECT state FROM transcript_checkpoints WHERE session = ?",
      [id],
    );
    const forged = rows[0]!.state.replace('"last_run_interrupted":false', '"last_run_interrupted":true');
    expect(forged).not.toBe(rows[0]!.state);
    await app.sql("UPDATE transcript_checkpoints SET state = ? WHERE session = ?", [forged, id]);
    await app.boot();
    const snapshot = await app.api(`/sessions/${id}`);
    expect(snapshot.status).toBe(500);
    expect(snapshot.json()).toMatchObject({ code: "log_corrupt" });
  });
});
