/** How one collected response becomes history items. Pure. */
import { assistantMessage, type Item, type MessageItem } from "../model/items.js";
import type { CollectedMessage, CollectedResponse } from "./response-collector.js";

/**
 * All reasoning items first (Anthropic requires thinking before the rest of the response), then the
 * assistant messages (one with the joined text unless the provider told its messages apart, by
 * item id and phase, or signed a text), then the tool calls in order.
 */
export function assistantItems(response: CollectedResponse): Item[] {
  const items: Item[] = [...response.reasoning];
  for (const message of response.messages) items.push(messageItem(message));
  items.push(...response.toolCalls);
  return items;
}

function messageItem(message: CollectedMessage): MessageItem {
  const item = assistantMessage(message.text);
  if (message.item_id !== undefined) item.id = message.item_id;
  if (message.phase !== undefined) item.phase = message.phase;
  if (message.signature !== undefined) item.signature = message.signature;
  if (message.origin !== undefined) item.origin = message.origin;
  return item;
}
