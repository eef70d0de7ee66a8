/** How one session's chat ends: `skein chat` leaves, or goes on in another session. */
import type { ExitCode } from "../exit-codes.js";

/**
 * How one session's chat ended: leave with a code, or go on in another session (/new, /fork);
 * `resume`: one that has a history to show (an agent's, its parent: /agents, /parent).
 */
export type ChatEnd =
  | { kind: "exit"; code: ExitCode }
  | { kind: "switch"; sessionId: string; resume?: boolean };
