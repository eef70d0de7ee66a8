/**
 * What a model answer cut short by a cancel leaves behind: the text and thinking it had streamed,
 * as history items. Pure.
 *
 * Decisions: the items are kept by value only (reasoning text, one assistant message with the
 * joined text), without any provider payload (ids, signatures, encrypted reasoning): an
 * unfinished response's payloads are not something a provider is known to take back, and by
 * value every request builder can send them (unsigned reasoning is left out where the API needs
 * a signature). Tool calls, finished or half-built, are dropped: they never ran and a call
 * without its result would make the next request invalid. Empty blocks are dropped.
 */
import { assistantMessage, type Item, reasoning } from "../model/items.js";
import type { StreamedBlock } from "./response-collector.js";

/** The items an interrupted answer leaves: reasoning first (as a whole answer's), then its text. */
export function interruptedAnswer(blocks: readonly StreamedBlock[]): Item[] {
  const items: Item[] = [];
  const text: string[] = [];
  for (const block of blocks) {
    if (block.text === "") continue;
    if (block.kind === "thinking") items.push(reasoning(block.text));
    else text.push(block.text);
  }
  const joined = text.join("");
  if (joined.trim() !== "") items.push(assistantMessage(joined));
  return items;
}
