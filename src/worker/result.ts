/** How a run ended without failing. Failures reject with a WorkerError instead. */
import { unreachable } from "../model/unreachable.js";

/**
 * - `finished`: the model answered without tool calls and no interceptor asked for more.
 * - `paused`: an interceptor paused before a tool batch or at the end of a run; `resume()` goes on.
 * - `limit_reached`: the cumulative request count reached `maxRequests` after a tool batch.
 * - `yielded`: `beforeRequest` yielded (e.g. to let the owner compact the history), then `resume()`.
 */
export type WorkerResult = "finished" | "paused" | "limit_reached" | "yielded";

/** Whether a run that ended with `result` leaves the history needing a `resume()`. */
export function leavesRunInterrupted(result: WorkerResult): boolean {
  switch (result) {
    case "finished":
    case "limit_reached":
      return false;
    case "paused":
    case "yielded":
      return true;
    default:
      unreachable(result, "Unknown worker result:");
  }
}
