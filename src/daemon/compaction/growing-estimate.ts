/**
 * The token estimate of a history that grows by appending: each request of a session sends the
 * history the last one sent plus what was appended since, so the estimate of the part already
 * counted is kept and only the new items are counted (the estimate of the whole history on
 * every request was a share of a plain turn's work that grew with the session).
 *
 * Boundary rule: a kept sum is used only when the history still starts with the item it started
 * with and still holds, at the same position, the last item counted; anything else (a
 * compaction replaces the start, an exclusion moves the items after it) is counted afresh.
 */
import type { Item } from "../../model/items.js";
import { estimateItemTokens } from "../../model/token-estimate.js";

export class GrowingEstimate {
  #first: Item | undefined;
  #last: Item | undefined;
  #count = 0;
  #sum = 0;

  /** The estimated tokens of `items` (`estimateItemsTokens`). */
  of(items: readonly Item[]): number {
    const kept =
      this.#count > 0 &&
      items.length >= this.#count &&
      items[0] === this.#first &&
      items[this.#count - 1] === this.#last;
    let sum = kept ? this.#sum : 0;
    for (let i = kept ? this.#count : 0; i < items.length; i++) sum += estimateItemTokens(items[i]!);
    this.#first = items[0];
    this.#last = items.at(-1);
    this.#count = items.length;
    this.#sum = sum;
    return sum;
  }
}
