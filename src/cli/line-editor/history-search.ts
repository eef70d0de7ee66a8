/**
 * Ctrl-R at the prompt: search the history for prompts containing what is typed, newest first.
 *
 * Boundary rule: pure functions over the search and the buffer; the editor feeds keys in and
 * draws `searchLine` below the prompt.
 */
import { bufferOf, type EditBuffer } from "./edit-buffer.js";
import { isPrintable, type Key } from "./keypress.js";

/** A history search in progress. */
export interface Search {
  readonly query: string;
  /** Index in the history of the match shown, or null when nothing matches. */
  readonly index: number | null;
  /** The buffer before the search (restored on Esc). */
  readonly before: EditBuffer;
}

/** The search (null once it ended) and the buffer after one key. */
export interface SearchStep {
  readonly search: Search | null;
  readonly buffer: EditBuffer;
  /** False when the key ended the search and is to be handled as a key of its own. */
  readonly handled: boolean;
}

/** A search starting from `buffer`, with nothing typed yet. */
export function startSearch(buffer: EditBuffer): Search {
  return { query: "", index: null, before: buffer };
}

/** One key during the search, showing `buffer`. */
export function searchKey(
  search: Search,
  buffer: EditBuffer,
  text: string | undefined,
  key: Key,
  entries: readonly string[],
): SearchStep {
  if (key.ctrl === true && key.name === "r") {
    return {
      ...find(search, buffer, search.index === null ? null : search.index - 1, entries),
      handled: true,
    };
  }
  if ((key.ctrl === true && key.name === "g") || key.name === "escape") {
    return { search: null, buffer: search.before, handled: true };
  }
  if (key.name === "backspace") {
    return { ...find({ ...search, query: search.query.slice(0, -1) }, buffer, null, entries), handled: true };
  }
  if (key.name === "return") {
    // Enter takes the match into the prompt to be edited or sent.
    return { search: null, buffer, handled: true };
  }
  if (text !== undefined && key.ctrl !== true && key.meta !== true && isPrintable(text)) {
    return { ...find({ ...search, query: search.query + text }, buffer, null, entries), handled: true };
  }
  return { search: null, buffer, handled: false };
}

/** The line drawn below the prompt while searching. */
export function searchLine(search: Search): string {
  const found = search.index === null && search.query !== "" ? " (no match)" : "";
  return `history search: ${search.query}${found}  (Ctrl-R older, Esc cancels)`;
}

/**
 * Show the newest entry at or before `from` (null: the newest) that contains the query. Without
 * a match an older-search (`from` given) keeps what it showed; a new query shows no match.
 */
function find(
  search: Search,
  buffer: EditBuffer,
  from: number | null,
  entries: readonly string[],
): { search: Search; buffer: EditBuffer } {
  for (let i = from ?? entries.length - 1; i >= 0; i--) {
    if (entries[i]!.includes(search.query))
      return { search: { ...search, index: i }, buffer: bufferOf(entries[i]!) };
  }
  return { search: from === null ? { ...search, index: null } : search, buffer };
}
