/**
 * Anthropic Messages request bodies. Consecutive items of one side are grouped into one
 * message: an assistant run (thinking with its signature or redacted data, text, tool_use)
 * becomes one assistant message, tool results and user text become one user message with the
 * `tool_result` blocks first (the API requires them to lead). Reasoning without a signature,
 * or produced by another provider or model (whose signature this API would reject), is not
 * sent. With prompt caching on, the system prompt and the last message's last block carry
 * `cache_control` breakpoints, so the whole prefix (tools, system, history) is cached from one
 * request to the next. Thinking follows the capability table: `enabled` with a budget (kept
 * at least 1024 and below `max_tokens`) or `adaptive` with `output_config.effort`; sampling
 * parameters are dropped where the model rejects them.
 * The history passes through `history-projection.ts` first; an assistant text that is only
 * whitespace is left out (400 "text content blocks must contain non-whitespace text"), a user
 * one becomes a placeholder, and the last block of a request that ends with an assistant
 * message loses its trailing whitespace (400 "final assistant content cannot end with trailing
 * whitespace"). With thinking on, the final assistant message of a tool loop must start with a
 * thinking block; when it has none this model can take (the loop began on another model, or
 * its thinking was dropped), that request goes without thinking — what the API's own message
 * recommends — and the next turn thinks again.
 *
 * Boundary rule: pure functions from an LlmRequest to the wire body.
 */
import type { Item, ItemOrigin } from "../../model/items.js";
import { messageText, payloadFits } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import { unreachable } from "../../model/unreachable.js";
import { pairedEntries, resultText } from "../history-projection.js";
import type { HistorySources } from "../history-refusal.js";
import {
  type AnthropicEffort,
  budgetFor,
  levelFor,
  type ModelCapabilities,
  samplingParameters,
} from "../model-capabilities.js";

/** Protocol options that come from the profile. */
export interface AnthropicRequestOptions {
  model: string;
  promptCaching: boolean;
  capabilities: ModelCapabilities;
  origin: ItemOrigin;
}

/** Used when the request config sets no limit (the API requires one). */
const defaultAnthropicMaxTokens = 8192;

/** The API's smallest thinking budget. */
const minimumBudget = 1024;

type Role = "user" | "assistant";

interface CacheControl {
  type: "ephemeral";
}

type AnthropicBlock =
  | { type: "text"; text: string; cache_control?: CacheControl }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | { type: "tool_use"; id: string; name: string; input: JsonObject; cache_control?: CacheControl }
  | {
      type: "tool_result";
      tool_use_id: string;
      content: string;
      is_error?: boolean;
      cache_control?: CacheControl;
    };

export interface AnthropicMessage {
  role: Role;
  content: AnthropicBlock[];
}

type AnthropicThinking = { type: "enabled"; budget_tokens: number } | { type: "adaptive" };

/** The request body as sent. */
export interface AnthropicRequestBody {
  model: string;
  max_tokens: number;
  messages: AnthropicMessage[];
  stream: true;
  system?: string | { type: "text"; text: string; cache_control: CacheControl }[];
  tools?: { name: string; description: string; input_schema: JsonObject & { type: "object" } }[];
  temperature?: number;
  top_p?: number;
  top_k?: number;
  stop_sequences?: string[];
  thinking?: AnthropicThinking;
  output_config?: { effort: AnthropicEffort };
}

/** The content block an item contributes and the side it belongs to, or undefined to skip it. */
function blockOf(item: Item, origin: ItemOrigin): { role: Role; block: AnthropicBlock } | undefined {
  switch (item.type) {
    case "message": {
      const text = messageText(item);
      if (item.role === "assistant") {
        return text.trim().length === 0 ? undefined : { role: "assistant", block: { type: "text", text } };
      }
      if (text.length === 0) return undefined;
      return { role: "user", block: { type: "text", text: text.trim().length === 0 ? emptyUserText : text } };
    }
    case "reasoning":
      if (!payloadFits(item.origin, origin)) return undefined;
      if (item.redacted === true && item.encrypted_content !== undefined) {
        return { role: "assistant", block: { type: "redacted_thinking", data: item.encrypted_content } };
      }
      if (item.signature === undefined) return undefined;
      return {
        role: "assistant",
        block: { type: "thinking", thinking: item.text, signature: item.signature },
      };
    case "tool_call":
      return {
        role: "assistant",
        block: {
          type: "tool_use",
          id: item.call_id,
          name: item.name,
          input: toolArgumentsObject(item.arguments) ?? {},
        },
      };
    case "tool_result": {
      const block: AnthropicBlock = {
        type: "tool_result",
        tool_use_id: item.call_id,
        content: resultText(item),
      };
      if (item.is_error === true) block.is_error = true;
      return { role: "user", block };
    }
    default:
      unreachable(item, "unknown item");
  }
}

/** What a user text that is only whitespace is sent as (the API refuses it as it is). */
const emptyUserText = "(empty message)";

/**
 * The `messages` array: one message per run of same-side items. `sources` (when given) gets,
 * per message, the position of the history item each content block was built from.
 */
export function anthropicMessages(
  items: readonly Item[],
  origin: ItemOrigin,
  sources: HistorySources = [],
): AnthropicMessage[] {
  const drafts: { role: Role; blocks: { block: AnthropicBlock; from: number | undefined }[] }[] = [];
  for (const { item, from } of pairedEntries(items)) {
    const entry = blockOf(item, origin);
    if (entry === undefined) continue;
    const last = drafts[drafts.length - 1];
    if (last !== undefined && last.role === entry.role) last.blocks.push({ block: entry.block, from });
    else drafts.push({ role: entry.role, blocks: [{ block: entry.block, from }] });
  }
  const messages = drafts.map((draft) => {
    // A user message's tool results go first (the API wants them right after the calls).
    const blocks =
      draft.role === "user"
        ? [
            ...draft.blocks.filter(({ block }) => block.type === "tool_result"),
            ...draft.blocks.filter(({ block }) => block.type !== "tool_result"),
          ]
        : draft.blocks;
    sources.push(blocks.map(({ from }) => from));
    return { role: draft.role, content: blocks.map(({ block }) => block) };
  });
  trimFinalAssistantText(messages);
  return messages;
}

/** A request ending with an assistant message: its last text block loses trailing whitespace. */
function trimFinalAssistantText(messages: AnthropicMessage[]): void {
  const last = messages[messages.length - 1];
  if (last?.role !== "assistant") return;
  const block = last.content[last.content.length - 1];
  if (block?.type === "text") block.text = block.text.trimEnd();
}

/**
 * Whether the request is inside a tool loop whose final assistant message does not start with
 * a thinking block: the API then refuses thinking ("a final `assistant` message must start with
 * a thinking block").
 */
function toolLoopLacksThinking(messages: readonly AnthropicMessage[]): boolean {
  const last = messages[messages.length - 1];
  const previous = messages[messages.length - 2];
  if (last?.role !== "user" || previous?.role !== "assistant") return false;
  if (!last.content.some((block) => block.type === "tool_result")) return false;
  const first = previous.content[0];
  return first?.type !== "thinking" && first?.type !== "redacted_thinking";
}

/** `config` without its reasoning control. */
function withoutReasoning(config: LlmRequest["config"]): LlmRequest["config"] {
  const { reasoning: _reasoning, ...rest } = config;
  return rest;
}

/** Thinking, effort and output limit for a request; the limit always leaves room above the budget. */
function thinkingParameters(
  request: LlmRequest,
  capabilities: ModelCapabilities,
): Pick<AnthropicRequestBody, "max_tokens" | "thinking" | "output_config"> {
  const { reasoning, max_tokens: requested } = request.config;
  const rule = capabilities.reasoning;
  if (reasoning !== undefined && rule.style === "anthropic_budget") {
    const budget = Math.max(minimumBudget, budgetFor(reasoning, rule.budgets));
    // The limit covers thinking and answer: a limit at or under the budget gets the budget on top.
    const max_tokens =
      requested === undefined
        ? defaultAnthropicMaxTokens + budget
        : requested > budget
          ? requested
          : requested + budget;
    return { max_tokens, thinking: { type: "enabled", budget_tokens: budget } };
  }
  const max_tokens = requested ?? defaultAnthropicMaxTokens;
  if (reasoning !== undefined && rule.style === "anthropic_adaptive") {
    return {
      max_tokens,
      thinking: { type: "adaptive" },
      output_config: { effort: levelFor(reasoning, rule.levels) },
    };
  }
  return { max_tokens };
}

const cacheableBlocks = new Set(["text", "tool_result", "tool_use"]);

/** The full streaming request body; `sources` as for `anthropicMessages`. */
export function anthropicRequestBody(
  request: LlmRequest,
  options: AnthropicRequestOptions,
  sources?: HistorySources,
): AnthropicRequestBody {
  const messages = anthropicMessages(request.items, options.origin, sources);
  // A tool loop another model began (or whose thinking is gone) goes on without thinking.
  const config = toolLoopLacksThinking(messages) ? withoutReasoning(request.config) : request.config;
  const body: AnthropicRequestBody = {
    model: options.model,
    max_tokens: 0,
    messages,
    stream: true,
  };
  Object.assign(body, thinkingParameters({ ...request, config }, options.capabilities));
  if (request.system_prompt !== undefined && request.system_prompt.length > 0) {
    body.system = options.promptCaching
      ? [{ type: "text", text: request.system_prompt, cache_control: { type: "ephemeral" } }]
      : request.system_prompt;
  }
  if (options.promptCaching) {
    const lastContent = messages[messages.length - 1]?.content;
    const lastBlock = lastContent?.[lastContent.length - 1];
    if (lastBlock !== undefined && cacheableBlocks.has(lastBlock.type)) {
      (lastBlock as { cache_control?: CacheControl }).cache_control = { type: "ephemeral" };
    }
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: { ...tool.input_schema, type: "object" },
    }));
  }
  Object.assign(body, samplingParameters(config, options.capabilities));
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    body.stop_sequences = [...config.stop_sequences];
  }
  return body;
}
