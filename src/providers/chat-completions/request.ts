/**
 * OpenAI Chat Completions request bodies (also Ollama, llama.cpp, vLLM, DeepSeek, Mistral, ...):
 * the system prompt first, user/system messages as they are, each run of assistant items
 * (text, tool calls) as one assistant message with `tool_calls`, each tool result as a
 * `role: "tool"` message. Reasoning goes back only where the model family needs it
 * (`reasoning_content`, DeepSeek thinking tool loops): the run's reasoning text when this same
 * model produced it, else an empty string so the field is never missing. Which sampling and
 * effort parameters are sent is the capability table's decision.
 *
 * Boundary rule: pure functions from an LlmRequest to the wire body.
 */
import type { Item, ItemOrigin, ToolCallItem } from "../../model/items.js";
import { messageText, payloadFits } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import {
  levelFor,
  type ModelCapabilities,
  type OpenAiEffort,
  samplingParameters,
} from "../model-capabilities.js";

/** Protocol options that come from the profile. */
export interface ChatRequestOptions {
  model: string;
  maxTokensField: "max_tokens" | "max_completion_tokens";
  capabilities: ModelCapabilities;
  /** This client, to tell its own reasoning from another model's. */
  origin: ItemOrigin;
}

export interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[]; reasoning_content?: string }
  | { role: "tool"; tool_call_id: string; content: string };

export interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

/** The request body as sent. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream: true;
  stream_options: { include_usage: boolean };
  tools?: ChatTool[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** Not an OpenAI parameter; local servers (vLLM, llama.cpp, Ollama) honour it. */
  top_k?: number;
  stop?: string[];
  reasoning_effort?: OpenAiEffort;
}

/** The `messages` array for a request. */
export function chatMessages(
  systemPrompt: string | undefined,
  items: readonly Item[],
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
): ChatMessage[] {
  const messages: ChatMessage[] = [];
  if (systemPrompt !== undefined && systemPrompt.length > 0) {
    messages.push({ role: "system", content: systemPrompt });
  }
  let assistantText: string[] = [];
  let assistantCalls: ToolCallItem[] = [];
  let assistantReasoning: string[] = [];
  let inAssistantRun = false;
  const flushAssistant = () => {
    if (!inAssistantRun) return;
    inAssistantRun = false;
    const text = assistantText.join("");
    if (text.length > 0 || assistantCalls.length > 0) {
      const message: Extract<ChatMessage, { role: "assistant" }> = {
        role: "assistant",
        content: text.length > 0 ? text : null,
      };
      if (assistantCalls.length > 0) {
        message.tool_calls = assistantCalls.map((call) => ({
          id: call.call_id,
          type: "function",
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      if (options.capabilities.reasoningContent) message.reasoning_content = assistantReasoning.join("");
      messages.push(message);
    }
    assistantText = [];
    assistantCalls = [];
    assistantReasoning = [];
  };
  for (const item of items) {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          // Text after tool calls starts a new assistant message so the calls keep their place.
          if (assistantCalls.length > 0) flushAssistant();
          inAssistantRun = true;
          assistantText.push(messageText(item));
        } else {
          flushAssistant();
          messages.push({ role: item.role, content: messageText(item) });
        }
        break;
      case "tool_call":
        inAssistantRun = true;
        assistantCalls.push(item);
        break;
      case "reasoning":
        if (assistantCalls.length > 0) flushAssistant();
        inAssistantRun = true;
        if (payloadFits(item.origin, options.origin)) assistantReasoning.push(item.text);
        break;
      case "tool_result":
        flushAssistant();
        messages.push({ role: "tool", tool_call_id: item.call_id, content: item.output });
        break;
      default: {
        const unreachable: never = item;
        throw new Error(`unknown item ${JSON.stringify(unreachable)}`);
      }
    }
  }
  flushAssistant();
  return messages;
}

/** The full streaming request body. */
export function chatRequestBody(request: LlmRequest, options: ChatRequestOptions): ChatRequestBody {
  const body: ChatRequestBody = {
    model: options.model,
    messages: chatMessages(request.system_prompt, request.items, options),
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.input_schema },
    }));
  }
  const { config } = request;
  const { capabilities } = options;
  if (config.max_tokens !== undefined) body[options.maxTokensField] = config.max_tokens;
  Object.assign(body, samplingParameters(config, capabilities));
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    body.stop = [...config.stop_sequences];
  }
  if (config.reasoning !== undefined && capabilities.reasoning.style === "effort") {
    body.reasoning_effort = levelFor(config.reasoning, capabilities.reasoning.levels);
  }
  return body;
}
