/**
 * A turn's conversation: the session's history as the agent loop sees it (the log's replay),
 * and each step the loop appends, committed through the actor's mailbox (the calls that must
 * wait for an answer requested in the same commit; the last answer held for the turn's end).
 */
import { classifyDelta } from "../../log/session-log.js";
import type { Item } from "../../model/items.js";
import type { Conversation } from "../../worker/index.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import type { SessionLogWriter } from "../session/session-log-writer.js";
import type { SessionServices } from "../session/session-services.js";
import { isStorageUnavailable, storageFailureText } from "../storage/storage-unavailable.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type { TurnRun } from "./turn-run.js";

/** What a turn's conversation needs of its session. */
export interface ConversationContext {
  services: SessionServices;
  feed: SessionFeed;
  log: SessionLogWriter;
  /** Run `task` in the actor's mailbox. */
  task<T>(task: () => Promise<T> | T): Promise<T>;
}

/** The session's history as the loop of turn `turnId` (`turn()`) sees it: the log's replay, appended through the mailbox. */
export function turnConversation(
  ctx: ConversationContext,
  gate: ApprovalGate,
  turnId: string,
  turn: () => TurnRun,
): Conversation {
  const { log, feed, services } = ctx;
  return {
    get items(): readonly Item[] {
      return log.state.history;
    },
    append: async (items, kind, hint) => {
      feed.flushDeltas();
      try {
        await ctx.task(async () => {
          const entries = classifyDelta(items, services.now(), { turn_id: turnId });
          // A model response's calls that must wait are requested in the same commit as the calls.
          const policy = turn().policy;
          const requests =
            kind === "assistant" && policy !== null ? gate.requestEntries(items, policy, turnId) : [];
          if (hint?.final === true && requests.length === 0) {
            // The run's last step: it is committed (and published) with the turn's end, in
            // one transaction. Nothing runs on it meanwhile: no tool, no other request.
            log.hold(entries);
            return;
          }
          entries.push(...requests);
          await log.commit(entries);
          turn().committed(items);
          gate.announce(entries);
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
