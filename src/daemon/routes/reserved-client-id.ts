/**
 * Client ids only the daemon gives its own inputs: `schedule:<schedule id>` on a schedule's
 * firings (budget/schedule-attribution.ts charges their turns to that schedule's budget) and
 * `task:<parent session id>` on a `task` call's child input (task/task-run.ts). A client that
 * could send them would charge, or dodge, another schedule's budget and pass for a subagent, so
 * an input or an approval answer with one is refused before anything is stored.
 */
import { scheduleClientIdPrefix } from "../budget/schedule-attribution.js";
import { problem } from "../http/problem.js";
import { taskClientIdPrefix } from "../task/task-id.js";

const reservedPrefixes = [scheduleClientIdPrefix, taskClientIdPrefix] as const;

/** Refuse (400 `invalid_request`) a client's `client_id` that starts with a prefix the daemon keeps. */
export function checkClientIdNotReserved(clientId: string | null | undefined): void {
  if (clientId === null || clientId === undefined) return;
  const reserved = reservedPrefixes.find((prefix) => clientId.startsWith(prefix));
  if (reserved === undefined) return;
  throw problem(
    "invalid_request",
    `client_id ${JSON.stringify(clientId.slice(0, 64))} starts with "${reserved}", which only the daemon ` +
      "uses (schedule firings, task children); name the client otherwise",
  );
}
