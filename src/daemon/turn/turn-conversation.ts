/**
 * A turn's conversation: the session's history as the agent loop sees it (the log's replay),
 * and each step the loop appends, committed in the session's mailbox (the calls that must wait
 * for an answer requested in the same commit). The loop's last step (an answer without tool
 * calls) is held, not committed: the turn's end commits it, in one transaction with the end,
 * and holding needs no mailbox, so a plain turn enters the mailbox only for its start and end.
 */
import type { LogEntry } from "../../log/entries.js";
import { classifyDelta } from "../../log/session-log.js";
import type { Item } from "../../model/items.js";
import type { AppendHint, Conversation } from "../../worker/index.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import type { TurnBudget } from "../budget/turn-budget.js";
import type { SessionPort } from "../session/session-port.js";
import { isStorageUnavailable, storageFailureText } from "../storage/storage-unavailable.js";
import type { TurnRun } from "./turn-run.js";

/** The session's history as the loop of turn `turnId` (`turn()`) sees it: the log's replay, appended through the mailbox. */
export function turnConversation(
  port: SessionPort,
  gate: ApprovalGate,
  turnId: string,
  turn: () => TurnRun,
  budget?: TurnBudget,
): Conversation {
  const { log } = port;
  return {
    get items(): readonly Item[] {
      return log.state.history;
    },
    append: async (items, kind, hint) => {
      port.flushDeltas();
      try {
        if (hint?.final === true && !items.some((item) => item.type === "tool_call")) {
          // The run's last step: committed (and published) with the turn's end, in one
          // transaction. Nothing runs on it meanwhile: no tool, no other request; whatever
          // the session commits first writes it first.
          log.hold(withUsage(classifyDelta(items, port.now(), { turn_id: turnId }), hint, budget));
          return;
        }
        await port.serialize(async () => {
          const entries = withUsage(classifyDelta(items, port.now(), { turn_id: turnId }), hint, budget);
          // A model response's calls that must wait are requested in the same commit as the calls.
          const policy = turn().policy;
          if (kind === "assistant" && policy !== null)
            entries.push(...gate.requestEntries(items, policy, turnId));
          await log.commit(entries);
          turn().committed(items);
        });
      } catch (error) {
        // The loop unwinds on the same error; this says why the turn stopped.
        if (log.corrupt !== null) turn().abort("corrupt");
        else if (isStorageUnavailable(error)) turn().abort("storage", storageFailureText(error));
        throw error;
      }
    },
  };
}

/**
 * A model answer's entries with its request's usage on the `assistant_items` entry, so the log
 * holds what every request used (and storage adds it to the budget sums in the same commit).
 */
function withUsage(
  entries: LogEntry[],
  hint: AppendHint | undefined,
  budget: TurnBudget | undefined,
): LogEntry[] {
  const usage = hint?.usage === undefined ? null : (budget?.usageRecord(hint.usage) ?? null);
  if (usage === null) return entries;
  return entries.map((entry) => (entry.kind === "assistant_items" ? { ...entry, usage } : entry));
}
