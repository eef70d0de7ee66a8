/**
 * How long a follower waits for its stream's answer: as long as its idle timeout (20 s unless
 * told), the rule for a stream that falls silent, not the 10 s of a plain exchange. A real daemon
 * child process, paused with SIGSTOP so it answers late.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DaemonClient, uuidV7 } from "../../src/client/index.js";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

describe("opening a session's stream", () => {
  let app: DaemonHarness;

  beforeAll(async () => {
    app = await DaemonHarness.start();
  });

  afterAll(async () => {
    await app?.close();
  });

  /** The first item of `sessionId`'s stream, or the error it ended with, with the daemon paused for `pausedMs`. */
  async function firstItemWhilePaused(sessionId: string, idleTimeoutMs: number, pausedMs: number) {
    const client = DaemonClient.forHome(app.home);
    const abort = new AbortController();
    process.kill(app.pid, "SIGSTOP");
    const resumed = new Promise<void>((resolve) =>
      setTimeout(() => {
        process.kill(app.pid, "SIGCONT");
        resolve();
      }, pausedMs),
    );
    try {
      const stream = client.follow(sessionId, { signal: abort.signal, idleTimeoutMs, tail: 0 });
      const first = await stream.next();
      return { item: first.value ?? null, error: null };
    } catch (error) {
      return { item: null, error };
    } finally {
      await resumed;
      abort.abort();
      client.close();
    }
  }

  it("waits for a busy daemon's answer as long as the follower's idle timeout", async () => {
    const client = DaemonClient.forHome(app.home);
    const created = await client.createSession(uuidV7(), { workspace: app.workspace });
    client.close();
    const late = await firstItemWhilePaused(created.id, 5_000, 1_500);
    expect(late.error).toBeNull();
    expect(late.item).not.toBeNull();
    const given = await firstItemWhilePaused(created.id, 300, 1_500);
    expect(String(given.error)).toMatch(/no answer within 300 ms/);
  });
});
