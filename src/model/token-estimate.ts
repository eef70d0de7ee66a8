/**
 * A rough token count of items and text, for decisions made before a provider has reported
 * usage (when to compact, how much to keep) and for sizes the provider never reports (a
 * summary's share of the next prompt). About four characters a token, plus a small overhead
 * per item for the wire format around it.
 *
 * Boundary rule: pure; never sent anywhere, never billed. Callers that know a provider's real
 * count scale these by it (see the daemon's context accounting).
 */
import type { Item } from "./items.js";
import { unreachable } from "./unreachable.js";

/** Characters per token of the estimate (English prose and code average about 4). */
const charsPerToken = 4;
/** Tokens the wire format adds around one item (role markers, ids, separators). */
const perItemOverhead = 4;

/** Estimated tokens of a text. */
export function estimateTextTokens(text: string): number {
  return Math.ceil(text.length / charsPerToken);
}

/** Estimated tokens of one item as part of a prompt. */
export function estimateItemTokens(item: Item): number {
  switch (item.type) {
    case "message":
      return (
        perItemOverhead +
        item.content.reduce(
          (sum, part) => sum + estimateTextTokens(part.type === "text" ? part.text : part.refusal),
          0,
        )
      );
    case "tool_call":
      return perItemOverhead + estimateTextTokens(item.name) + estimateTextTokens(item.arguments);
    case "tool_result":
      return perItemOverhead + estimateTextTokens(item.output);
    case "reasoning":
      // Opaque payloads (encrypted reasoning) are sent back but count for less than their size.
      return (
        perItemOverhead +
        estimateTextTokens(item.text) +
        Math.ceil((item.encrypted_content?.length ?? 0) / (charsPerToken * 4))
      );
    default:
      unreachable(item, "unknown item");
  }
}

/** Estimated tokens of several items. */
export function estimateItemsTokens(items: readonly Item[]): number {
  let sum = 0;
  for (const item of items) sum += estimateItemTokens(item);
  return sum;
}
