/**
 * The way out of a session whose requests a provider keeps refusing because of something in
 * its history: the items of a range of log entries leave the model's context (a
 * `context_excluded` entry, reason `repair`), while the log keeps them. What a repair may name:
 * entries after the session's start, up to its last one, at least one of whose items the model
 * is still sent.
 *
 * Boundary rule: pure; the actor validates with it and commits what it returns.
 */

import type { RepairAnswer } from "../../api/session-snapshot.js";
import type { LogEntry } from "../../log/entries.js";
import type { RestoredState } from "../../log/restored-state.js";
import type { LlmClientError } from "../../model/llm-client.js";
import { RepairRangeInvalidError } from "../errors.js";

export type { RepairAnswer };

/** The `context_excluded` entry for excluding entries `from`..`to` (`to` defaults to `from`); throws when it cannot. */
export function repairEntry(
  sessionId: string,
  state: Readonly<RestoredState>,
  from: number,
  to: number | undefined,
  now: number,
): { entry: LogEntry; answer: RepairAnswer } {
  const last = state.next_position - 1;
  const through = to ?? from;
  if (from < 1 || through < from || through > last) {
    throw new RepairRangeInvalidError(
      sessionId,
      `entries ${from}..${through} are not within 1..${last} (the session's start cannot be excluded)`,
    );
  }
  const excluded = state.history_positions.filter(
    (position) => position >= from && position <= through,
  ).length;
  if (excluded === 0) {
    throw new RepairRangeInvalidError(
      sessionId,
      `no item of entries ${from}..${through} is in the model's context`,
    );
  }
  return {
    entry: { kind: "context_excluded", ts: now, from_position: from, to_position: through, reason: "repair" },
    answer: { session_id: sessionId, from_position: from, to_position: through, excluded_items: excluded },
  };
}

/**
 * Whether the provider refused the request itself (a 4xx other than an auth failure, a missing
 * model, a timeout or a rate limit): something in the history may be what it refuses, and a
 * repair can leave it out. A turn failing so ends with code `provider_refused`.
 */
export function isRepairableRefusal(error: LlmClientError): boolean {
  const status = error.status;
  if (error.kind !== "http" || status === undefined || status < 400 || status >= 500) return false;
  return ![401, 403, 404, 408, 429].includes(status);
}

/** What a turn's error adds when the refusal may be about the history: the command that repairs it. */
export function repairHint(error: LlmClientError, sessionId: string): string {
  if (!isRepairableRefusal(error)) return "";
  return (
    ` — if it refuses something in the session's history, leave those entries out of later requests: ` +
    `\`skein repair ${sessionId} --from POSITION [--to POSITION]\` (POST /sessions/${sessionId}/repair; ` +
    `\`skein show ${sessionId}\` tags each entry with its position)`
  );
}
