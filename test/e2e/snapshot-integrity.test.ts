/**
 * A loaded session's snapshot with no history (`?tail=0`, as JSON and as a stream attach) skips
 * measuring the snapshot for a history budget it never uses, yet still reads and verifies the
 * newest entries of its log: a newest entry changed behind the daemon, or a log rolled back
 * behind what the daemon committed, fails the read (500 log_corrupt).
 */
import { describe, expect, it } from "vitest";
import { useCliDaemon } from "../cli/support/cli-daemon.js";
import { text } from "../support/fake-provider/reply.js";
import { StreamRefusedError } from "./support/sse-client.js";

describe("snapshots without history", () => {
  const shared = useCliDaemon(() => text("the answer"));

  /** The status of a stream attach with `?tail=0` (opened, then closed; a refusal's status). */
  async function attachStatus(sessionId: string): Promise<number> {
    try {
      (await shared.daemon.openStream(sessionId, { tail: 0 })).close();
      return 200;
    } catch (error) {
      if (error instanceof StreamRefusedError) return error.status;
      throw error;
    }
  }

  /** A loaded session with `turns` finished turns (kept loaded by a snapshot read). */
  async function sessionWithTurns(turns: number): Promise<string> {
    const sessionId = await shared.daemon.createSession();
    for (let i = 0; i < turns; i++) await shared.daemon.turn(sessionId, `question ${i}`);
    expect((await shared.daemon.api(`/sessions/${sessionId}?tail=0`)).status).toBe(200);
    return sessionId;
  }

  it("serves a long session's snapshot with tail=0 as JSON and as a stream, with an older token", async () => {
    const sessionId = await sessionWithTurns(12);
    const snapshot = (await shared.daemon.api(`/sessions/${sessionId}?tail=0`)).json<{
      history: { items: unknown[]; older: string | null };
    }>();
    expect(snapshot.history.items).toEqual([]);
    expect(snapshot.history.older).not.toBeNull();
    const page = await shared.daemon.api(
      `/sessions/${sessionId}/history?next=${encodeURIComponent(snapshot.history.older!)}`,
    );
    expect(page.status).toBe(200);
    expect(page.json<{ items: unknown[] }>().items.length).toBeGreaterThan(12);
    expect(await attachStatus(sessionId)).toBe(200);
  });

  it("catches the newest entry changed behind the daemon, on a JSON read with tail=0", async () => {
    const sessionId = await sessionWithTurns(3);
    const [newest] = await shared.daemon.sql<{ position: number }>(
      "SELECT MAX(position) AS position FROM transcript WHERE session = ? AND entry LIKE '%the answer%'",
      [sessionId],
    );
    await shared.daemon.sql(
      "UPDATE transcript SET entry = replace(entry, 'the answer', 'a forged answer') WHERE session = ? AND position = ?",
      [sessionId, newest!.position],
    );
    const answer = await shared.daemon.api(`/sessions/${sessionId}?tail=0`);
    expect(answer.status).toBe(500);
    expect(answer.json()).toMatchObject({ code: "log_corrupt" });
    expect(await attachStatus(sessionId)).toBe(500);
  });

  it("catches a log rolled back behind the daemon, on a stream attach with tail=0", async () => {
    const sessionId = await sessionWithTurns(3);
    const [last] = await shared.daemon.sql<{ head: number }>(
      "SELECT MAX(position) AS head FROM transcript WHERE session = ?",
      [sessionId],
    );
    await shared.daemon.sql("DELETE FROM transcript WHERE session = ? AND position > ?", [
      sessionId,
      last!.head - 2,
    ]);
    expect(await attachStatus(sessionId)).toBe(500);
    const answer = await shared.daemon.api(`/sessions/${sessionId}?tail=0`);
    expect(answer.status).toBe(500);
    expect(answer.json()).toMatchObject({ code: "log_corrupt" });
  });
});
