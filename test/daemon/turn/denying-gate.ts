/** A stand-in for the session's approvals in tests of what a turn's start and end commit. */
import type { StartGate } from "../../../src/daemon/turn/turn-start.js";
import type { LogEntry } from "../../../src/log/entries.js";

/** A gate in which the calls `waiting` wait for an answer; each is denied by one `approval_resolved` entry, and `asked` records who asked. */
export function denyingGate(waiting: readonly string[]): StartGate & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    waiting: waiting.length > 0,
    closingEntries: (by, turnId) => {
      asked.push(by);
      return waiting.map(
        (callId): LogEntry => ({
          kind: "approval_resolved",
          ts: 7,
          call_id: callId,
          decision: "deny",
          by,
          turn_id: turnId,
        }),
      );
    },
  };
}
