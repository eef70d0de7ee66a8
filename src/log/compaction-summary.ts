/**
 * The item a compaction's summary replays as: one user message that says what it is, so the
 * model reads it as context handed over, not as a new request.
 *
 * Boundary rule: pure and fixed. Replay depends on this text, so changing it changes what old
 * logs replay to; add a new form beside it rather than editing it.
 */

import type { Item } from "../model/items.js";
import { type MessageItem, messageText, userMessage } from "../model/items.js";

/** The line the summary message starts with. */
export const compactionSummaryHeading =
  "[Skein] Summary of the earlier part of this conversation (older messages were compacted to fit the context window):";

/** The user message a compaction's summary becomes in the replayed context. */
export function compactionSummaryItem(summary: string): MessageItem {
  return userMessage(`${compactionSummaryHeading}\n\n${summary}`);
}

/** Whether `item` is a compaction summary message (as this module writes them). */
export function isCompactionSummary(item: Item): boolean {
  return (
    item.type === "message" && item.role === "user" && messageText(item).startsWith(compactionSummaryHeading)
  );
}
