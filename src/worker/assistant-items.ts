/** How one collected response becomes history items. Pure. */
import { assistantMessage, type Item } from "../model/items.js";
import type { CollectedResponse } from "./response-collector.js";

/**
 * All reasoning items first (Anthropic requires thinking before the rest of the turn), then ONE
 * assistant message with the joined text (omitted when empty), then the tool calls in order.
 */
export function assistantItems(response: CollectedResponse): Item[] {
  const items: Item[] = [...response.reasoning];
  if (response.text !== "") items.push(assistantMessage(response.text));
  items.push(...response.toolCalls);
  return items;
}
