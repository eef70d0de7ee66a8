/**
 * The growing estimate counts only what was appended since the last request, and counts a
 * history afresh once its start or its items before the end were replaced.
 */
import { describe, expect, it } from "vitest";
import { GrowingEstimate } from "../../../src/daemon/compaction/growing-estimate.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { estimateItemsTokens } from "../../../src/model/token-estimate.js";

describe("the growing estimate", () => {
  it("equals the whole history's estimate as it grows, is compacted and loses an item", () => {
    const estimate = new GrowingEstimate();
    const history = [userMessage("hi"), assistantMessage("Hello there, how can I help?")];
    expect(estimate.of(history)).toBe(estimateItemsTokens(history));
    history.push(userMessage("a longer question than the first"), assistantMessage("ok"));
    expect(estimate.of(history)).toBe(estimateItemsTokens(history));

    const compacted = [userMessage("summary of what came before, at some length"), ...history.slice(2)];
    expect(estimate.of(compacted)).toBe(estimateItemsTokens(compacted));

    // An exclusion of an item before the last one counted, then an append of the same length.
    const excluded = [compacted[0]!, compacted[2]!, userMessage("one more, a long one this time")];
    expect(estimate.of(excluded)).toBe(estimateItemsTokens(excluded));
  });
});
