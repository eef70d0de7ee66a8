/**
 * OpenAI Chat Completions request bodies (also Ollama, llama.cpp, vLLM, LM Studio, ...):
 * the system prompt first, user/system messages as they are, each run of assistant items
 * (text, tool calls) as one assistant message with `tool_calls`, each tool result as a
 * `role: "tool"` message. Reasoning is not sent back: the protocol has no field for it.
 *
 * Boundary rule: pure functions from an LlmRequest to JSON.
 */
import type { Item, ToolCallItem } from "../../model/items.js";
import { messageText } from "../../model/items.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";

/** Protocol options that come from the profile. */
export interface ChatRequestOptions {
  model: string;
  maxTokensField: "max_tokens" | "max_completion_tokens";
}

/** The `messages` array for a request. */
export function chatMessages(systemPrompt: string | undefined, items: readonly Item[]): JsonObject[] {
  const messages: JsonObject[] = [];
  if (systemPrompt !== undefined && systemPrompt.length > 0) {
    messages.push({ role: "system", content: systemPrompt });
  }
  let assistantText: string[] = [];
  let assistantCalls: ToolCallItem[] = [];
  let inAssistantRun = false;
  const flushAssistant = () => {
    if (!inAssistantRun) return;
    inAssistantRun = false;
    const text = assistantText.join("");
    if (text.length === 0 && assistantCalls.length === 0) return;
    const message: JsonObject = { role: "assistant", content: text.length > 0 ? text : null };
    if (assistantCalls.length > 0) {
      message.tool_calls = assistantCalls.map((call) => ({
        id: call.call_id,
        type: "function",
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    messages.push(message);
    assistantText = [];
    assistantCalls = [];
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
export function chatRequestBody(request: LlmRequest, options: ChatRequestOptions): JsonObject {
  const body: JsonObject = {
    model: options.model,
    messages: chatMessages(request.system_prompt, request.items),
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
  if (config.max_tokens !== undefined) body[options.maxTokensField] = config.max_tokens;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.top_p !== undefined) body.top_p = config.top_p;
  // Not an OpenAI parameter, but local servers (vLLM, llama.cpp, Ollama) honour it; sent only when asked for.
  if (config.top_k !== undefined) body.top_k = config.top_k;
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    body.stop = config.stop_sequences as JsonValue;
  }
  if (config.reasoning !== undefined && "effort" in config.reasoning) {
    body.reasoning_effort = config.reasoning.effort;
  }
  return body;
}
