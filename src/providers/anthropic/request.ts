/**
 * Anthropic Messages request bodies. Consecutive items of one side are grouped into one
 * message: an assistant run (thinking with its signature or redacted data, text, tool_use)
 * becomes one assistant message, tool results and user text become one user message with the
 * `tool_result` blocks first (the API requires them to lead). Reasoning without a signature
 * (another provider's) is not sent: the API would reject it. With prompt caching on, the system
 * prompt and the last message's last block carry `cache_control` breakpoints, so the whole
 * prefix (tools, system, history) is cached from one request to the next.
 *
 * Boundary rule: pure functions from an LlmRequest to JSON.
 */
import type { Item } from "../../model/items.js";
import { messageText } from "../../model/items.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import type { ReasoningControl } from "../../model/request-config.js";
import { argumentsObject } from "../tool-arguments.js";

/** Protocol options that come from the profile. */
export interface AnthropicRequestOptions {
  model: string;
  promptCaching: boolean;
}

/** Used when the request config sets no limit (the API requires one). */
export const defaultAnthropicMaxTokens = 8192;

/** Thinking budgets standing in for effort levels (Anthropic takes a budget, not a level). */
const effortBudgets = { minimal: 1024, low: 2048, medium: 8192, high: 16_384, xhigh: 32_768 } as const;

type Role = "user" | "assistant";

interface Draft {
  role: Role;
  content: JsonObject[];
}

/** The content block an item contributes and the side it belongs to, or undefined to skip it. */
function blockOf(item: Item): { role: Role; block: JsonObject } | undefined {
  switch (item.type) {
    case "message": {
      const text = messageText(item);
      if (text.length === 0) return undefined;
      return { role: item.role === "assistant" ? "assistant" : "user", block: { type: "text", text } };
    }
    case "reasoning":
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
          input: argumentsObject(item.arguments),
        },
      };
    case "tool_result": {
      const block: JsonObject = { type: "tool_result", tool_use_id: item.call_id, content: item.output };
      if (item.is_error === true) block.is_error = true;
      return { role: "user", block };
    }
    default: {
      const unreachable: never = item;
      throw new Error(`unknown item ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The `messages` array: one message per run of same-side items. */
export function anthropicMessages(items: readonly Item[]): JsonObject[] {
  const drafts: Draft[] = [];
  for (const item of items) {
    const entry = blockOf(item);
    if (entry === undefined) continue;
    const last = drafts[drafts.length - 1];
    if (last !== undefined && last.role === entry.role) last.content.push(entry.block);
    else drafts.push({ role: entry.role, content: [entry.block] });
  }
  return drafts.map((draft) => {
    const content =
      draft.role === "user"
        ? [
            ...draft.content.filter((block) => block.type === "tool_result"),
            ...draft.content.filter((block) => block.type !== "tool_result"),
          ]
        : draft.content;
    return { role: draft.role, content };
  });
}

const cacheableBlocks = new Set(["text", "tool_result", "tool_use"]);

function thinkingBudget(reasoning: ReasoningControl): number {
  return "budget_tokens" in reasoning ? reasoning.budget_tokens : effortBudgets[reasoning.effort];
}

/** The full streaming request body. */
export function anthropicRequestBody(request: LlmRequest, options: AnthropicRequestOptions): JsonObject {
  const { config } = request;
  const messages = anthropicMessages(request.items);
  const budget = config.reasoning === undefined ? undefined : thinkingBudget(config.reasoning);
  const body: JsonObject = {
    model: options.model,
    max_tokens: config.max_tokens ?? defaultAnthropicMaxTokens + (budget ?? 0),
    messages: messages as JsonValue,
    stream: true,
  };
  if (request.system_prompt !== undefined && request.system_prompt.length > 0) {
    body.system = options.promptCaching
      ? [{ type: "text", text: request.system_prompt, cache_control: { type: "ephemeral" } }]
      : request.system_prompt;
  }
  if (options.promptCaching) {
    const lastContent = messages[messages.length - 1]?.content as JsonObject[] | undefined;
    const lastBlock = lastContent?.[lastContent.length - 1];
    if (lastBlock !== undefined && cacheableBlocks.has(String(lastBlock.type))) {
      lastBlock.cache_control = { type: "ephemeral" };
    }
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.input_schema,
    }));
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.top_p !== undefined) body.top_p = config.top_p;
  if (config.top_k !== undefined) body.top_k = config.top_k;
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    body.stop_sequences = config.stop_sequences as JsonValue;
  }
  if (budget !== undefined) body.thinking = { type: "enabled", budget_tokens: budget };
  return body;
}
