/**
 * A vendor refusal that names one element of the body's history array — OpenAI's `param`
 * ("messages.[3].content", "input[5]"), a validator's `loc` (["body", "messages", 3, …]),
 * Anthropic's message ("messages.3.content.0: …") — answered by sending the request once more
 * without the history items that element was built from. Each builder says, per element of
 * its history array, which request items it came from (per content block where the protocol
 * has blocks), so the element is traced back exactly; a refusal naming an element no request
 * item made (the system message), the message the model is asked to answer (the last user
 * message), or naming none leaves the request as it was.
 *
 * Boundary rule: pure functions of refusal paths, builder sources and items.
 */
import type { Item } from "../model/items.js";
import { messageText } from "../model/items.js";
import type { LlmRequest, RefusedPath } from "../model/llm-client.js";
import { unreachable } from "../model/unreachable.js";

/**
 * For each element of a body's history array, the positions in the request's items it was
 * built from, in order; for a protocol with content blocks, one per block (undefined for a
 * block made up by the projection, e.g. the result of a call that lost its own).
 */
export type HistorySources = (number | undefined)[][];

/** Where a protocol's body holds the history, and which refusal paths it trusts to name an element. */
export interface HistoryArray {
  /** The body field ("messages", "input"). */
  array: string;
  trusts: readonly RefusedPath["from"][];
  /** Whether a path's index after `content` names a block of the element (Anthropic). */
  blocks: boolean;
}

/** The element (and block) of the history array a refusal names, or undefined. */
export function namedElement(
  paths: readonly RefusedPath[],
  history: HistoryArray,
): { index: number; block?: number } | undefined {
  for (const path of paths) {
    if (!history.trusts.includes(path.from)) continue;
    const [array, index, field, block] = path.segments;
    if (array !== history.array || typeof index !== "number") continue;
    return history.blocks && field === "content" && typeof block === "number" ? { index, block } : { index };
  }
  return undefined;
}

/** The request positions the named element (or its block) was built from. */
export function sourcePositions(sources: HistorySources, named: { index: number; block?: number }): number[] {
  const element = sources[named.index] ?? [];
  const chosen = named.block === undefined ? element : [element[named.block]];
  return [...new Set(chosen.filter((position): position is number => position !== undefined))];
}

/** `request` without the items at `positions`, and how the left-out part reads. */
export function withoutItems(
  request: LlmRequest,
  positions: readonly number[],
  label: string,
): { request: LlmRequest; leftOut: string } {
  const omitted = new Set(positions);
  const described = positions.map((position) => describeItem(request.items[position]!)).join(", ");
  return {
    request: { ...request, items: request.items.filter((_, position) => !omitted.has(position)) },
    leftOut: `${label}: ${described}`,
  };
}

/** An item as a reader finds it again in the session's history. */
function describeItem(item: Item): string {
  switch (item.type) {
    case "message":
      return `the ${item.role} message "${shortened(messageText(item))}"`;
    case "reasoning":
      return "a thinking block";
    case "tool_call":
      return `the ${item.name} call ${item.call_id}`;
    case "tool_result":
      return `the result of call ${item.call_id}`;
    default:
      unreachable(item, "unknown item");
  }
}

function shortened(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 40 ? `${line.slice(0, 39)}…` : line;
}
