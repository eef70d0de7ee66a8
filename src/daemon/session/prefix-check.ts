/**
 * The background half of a restore from a state checkpoint (log/tail-restore.ts): the log before
 * the checkpoint, which the load did not read, is verified page by page while the session
 * serves, yielding to other work between pages. A mismatch marks the session corrupt exactly as
 * a failed read does (nothing more is written; the error is what every later request gets).
 *
 * Boundary rule: reads only; stops when the session is unloaded.
 */
import { setImmediate as nextTurn } from "node:timers/promises";
import { LogCorruptError } from "../../log/errors.js";
import type { StateCheckpoint } from "../../log/state-checkpoint.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionLogWriter } from "./session-log-writer.js";
import type { SessionLogger } from "./session-services.js";

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
  // Let the load finish (and its first snapshot and request go out) before the first page.
  await nextTurn();
  try {
    return await storage.verifyLogPrefix(log.sessionId, checkpoint, {
      stopped: () => stopped() || log.corrupt !== null,
      between: () => nextTurn(),
    });
  } catch (error) {
    if (error instanceof LogCorruptError) log.markCorrupt(error);
    else logger.warn({ session_id: log.sessionId, err: error }, "the log's prefix could not be verified");
    return false;
  }
}
