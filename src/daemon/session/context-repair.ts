/**
 * The way out of a session whose requests a provider keeps refusing because of something in
 * its history: the items of a range of log entries leave the model's context (a
 * `context_excluded` entry, reason `repair`), while the log keeps them. What a repair may name:
 * entries after the session's start, up to its last one, at least one of whose items the model
 * is still sent.
 *
 * Boundary rule: pure; the actor validates with it and commits what it returns.
 */
import type { RestoredState } from "../../log/collect-state.js";
import type { LogEntry } from "../../log/entries.js";
import type { LlmClientError } from "../../model/llm-client.js";
import { RepairRangeInvalidError } from "../errors.js";

/** What a repair did, as the route answers it. */
export interface RepairAnswer {
  session_id: string;
  from_position: number;
  to_position: number;
  /** How many items the model is no longer sent. */
  excluded_items: number;
}

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
 * What a turn's error adds when the provider refused the request itself (a 4xx other than an
 * auth failure or a rate limit): something in the history may be what it refuses, and a repair
 * leaves it out.
 */
export function repairHint(error: LlmClientError): string {
  const status = error.status;
  if (error.kind !== "http" || status === undefined || status < 400 || status >= 500) return "";
  if ([401, 403, 404, 408, 429].includes(status)) return "";
  return " (if this refusal names an entry of the history, POST /sessions/{id}/repair with its position leaves it out of later requests)";
}
