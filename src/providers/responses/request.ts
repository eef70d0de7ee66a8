/**
 * OpenAI Responses request bodies: `instructions` carries the system prompt, `input` the items
 * (messages, `function_call`, `function_call_output`, and `reasoning` with its
 * `encrypted_content` so a stateless request can continue the model's reasoning).
 *
 * With `store: false` (the default) nothing is kept server-side, so item ids are not sent
 * (they would point at nothing) and reasoning without encrypted content cannot be sent back;
 * with `store: true` ids are sent as received.
 *
 * Boundary rule: pure functions from an LlmRequest to JSON.
 */
import type { Item } from "../../model/items.js";
import { messageText } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";

/** Protocol options that come from the profile. */
export interface ResponsesRequestOptions {
  model: string;
  store: boolean;
}

/** The `input` array for a request. */
export function responsesInput(items: readonly Item[], store: boolean): JsonObject[] {
  const input: JsonObject[] = [];
  for (const item of items) {
    switch (item.type) {
      case "message": {
        const text = messageText(item);
        if (item.role === "assistant") {
          const message: JsonObject = {
            type: "message",
            role: "assistant",
            content: [{ type: "output_text", text, annotations: [] }],
          };
          if (store && item.id !== undefined) message.id = item.id;
          input.push(message);
        } else {
          input.push({ type: "message", role: item.role, content: [{ type: "input_text", text }] });
        }
        break;
      }
      case "reasoning": {
        const canResend = item.encrypted_content !== undefined || (store && item.id !== undefined);
        if (!canResend) break;
        const reasoning: JsonObject = {
          type: "reasoning",
          summary: (item.summary ?? []).map((text) => ({ type: "summary_text", text })),
        };
        if (store && item.id !== undefined) reasoning.id = item.id;
        if (item.encrypted_content !== undefined) reasoning.encrypted_content = item.encrypted_content;
        input.push(reasoning);
        break;
      }
      case "tool_call": {
        const call: JsonObject = {
          type: "function_call",
          call_id: item.call_id,
          name: item.name,
          arguments: item.arguments,
        };
        if (store && item.id !== undefined) call.id = item.id;
        input.push(call);
        break;
      }
      case "tool_result":
        input.push({ type: "function_call_output", call_id: item.call_id, output: item.output });
        break;
      default: {
        const unreachable: never = item;
        throw new Error(`unknown item ${JSON.stringify(unreachable)}`);
      }
    }
  }
  return input;
}

/** The full streaming request body. */
export function responsesRequestBody(request: LlmRequest, options: ResponsesRequestOptions): JsonObject {
  const body: JsonObject = {
    model: options.model,
    input: responsesInput(request.items, options.store),
    stream: true,
    store: options.store,
  };
  if (!options.store) body.include = ["reasoning.encrypted_content"];
  if (request.system_prompt !== undefined && request.system_prompt.length > 0) {
    body.instructions = request.system_prompt;
  }
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: "function",
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema,
      strict: false,
    }));
    body.parallel_tool_calls = true;
  }
  const { config } = request;
  if (config.max_tokens !== undefined) body.max_output_tokens = config.max_tokens;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.top_p !== undefined) body.top_p = config.top_p;
  if (config.reasoning !== undefined) {
    const reasoning: JsonObject = { summary: "auto" };
    if ("effort" in config.reasoning) reasoning.effort = config.reasoning.effort;
    body.reasoning = reasoning;
  }
  return body;
}
