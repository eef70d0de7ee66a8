/**
 * The fields a daemon log line about a session carries, named alike everywhere so one query
 * finds every line of a session, a turn or a trace: `session_id`, `run_id` (a turn's id, as the
 * wire calls it) and `trace_id` (the turn's OpenTelemetry trace, when traces are exported).
 */
import type { SessionPort } from "./session-port.js";

/** What a log line about turn `turnId` of `port`'s session says of it (no turn: the session alone). */
export function turnLogFields(
  port: Pick<SessionPort, "sessionId" | "log">,
  turnId: string | null,
): { session_id: string; run_id?: string; trace_id?: string } {
  if (turnId === null) return { session_id: port.sessionId };
  const trace = port.log.traceOf(turnId);
  return trace === undefined
    ? { session_id: port.sessionId, run_id: turnId }
    : { session_id: port.sessionId, run_id: turnId, trace_id: trace.trace_id };
}
