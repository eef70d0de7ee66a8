/**
 * The background half of a restore from a state checkpoint (log/tail-restore.ts): the log before
 * the checkpoint, which the load did not read, is verified page by page while the session
 * serves. It starts a moment after the load (the load's own snapshot and next request go
 * first) and takes at most a quarter of the main thread: after each page it waits three times
 * as long as the page took. A mismatch marks the session corrupt exactly as a failed read does
 * (nothing more is written; the error is what every later request gets).
 *
 * Once verified, the prefix's points become the log's checkpoints (every spacing, as for a log
 * read whole at load): a history page there then reads about its own size, not the whole span
 * up to the state checkpoint. They are collected while the check reads and kept only once the
 * whole prefix verified, since only the checkpoint's hash at its end proves them.
 *
 * Boundary rule: reads only; stops when the session is unloaded.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { LogCorruptError } from "../../log/errors.js";
import type { StateCheckpoint } from "../../log/state-checkpoint.js";
import type { LogHead } from "../../log/store.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionLogWriter } from "./session-log-writer.js";
import type { SessionLogger } from "./session-services.js";

/** How long after the load the check starts (ms). */
const startDelayMs = 1_000;

/** Entries per page: a few milliseconds of hashing and replay, so no request waits long behind one. */
const pageSize = 128;

/**
 * Verify `log`'s prefix up to `checkpoint` in the background; resolves true once verified, false
 * when stopped or when it could not be read (a storage failure: the next load checks again).
 */
export async function checkPrefix(
  log: SessionLogWriter,
  storage: Pick<SessionStorage, "verifyLogPrefix">,
  checkpoint: StateCheckpoint,
  stopped: () => boolean,
  logger: SessionLogger,
): Promise<boolean> {
  await sleep(startDelayMs);
  const began = performance.now();
  let resumed = began;
  const points: LogHead[] = [];
  try {
    const verified = await storage.verifyLogPrefix(log.sessionId, checkpoint, {
      pageSize,
      stopped: () => stopped() || log.corrupt !== null,
      read: (page) => {
        points.push(...log.verifiedPoints.pointsOf(page));
      },
      between: async () => {
        await sleep(Math.max(1, (performance.now() - resumed) * 3));
        resumed = performance.now();
      },
    });
    if (verified) {
      log.verifiedPoints.learn(points);
      const ms = Math.round(performance.now() - began);
      logger.info({ session_id: log.sessionId, up_to: checkpoint.position, ms }, "the log's prefix verified");
    }
    return verified;
  } catch (error) {
    if (error instanceof LogCorruptError) log.markCorrupt(error);
    else logger.warn({ session_id: log.sessionId, err: error }, "the log's prefix could not be verified");
    return false;
  }
}
