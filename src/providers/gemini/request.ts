/**
 * Gemini `streamGenerateContent` request bodies: `systemInstruction` carries the system prompt,
 * `contents` the history with roles `user` and `model` (consecutive items of one side share a
 * content, so parallel calls and their responses stay together), tool calls as `functionCall`
 * parts with their `thoughtSignature` on the very part that carried it, tool results as
 * `functionResponse` parts (`{output}` or `{error}`), and reasoning that has a signature as a
 * thought part. Tool parameters go as `parametersJsonSchema` (full JSON Schema, unlike
 * `parameters`, which takes only an OpenAPI subset).
 *
 * Boundary rule: pure functions from an LlmRequest to JSON.
 */
import type { Item, ToolCallItem } from "../../model/items.js";
import { messageText } from "../../model/items.js";
import type { JsonObject, JsonValue } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import { argumentsObject } from "../tool-arguments.js";

type Role = "user" | "model";

/** Gemini 3 thinking levels standing in for effort levels. */
const thinkingLevels = {
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
} as const;

function partOf(
  item: Item,
  calls: ReadonlyMap<string, ToolCallItem>,
): { role: Role; part: JsonObject } | undefined {
  switch (item.type) {
    case "message": {
      const text = messageText(item);
      if (text.length === 0) return undefined;
      return { role: item.role === "assistant" ? "model" : "user", part: { text } };
    }
    case "reasoning":
      if (item.signature === undefined) return undefined;
      return {
        role: "model",
        part:
          item.text.length > 0
            ? { text: item.text, thought: true, thoughtSignature: item.signature }
            : { text: "", thoughtSignature: item.signature },
      };
    case "tool_call": {
      const functionCall: JsonObject = { name: item.name, args: argumentsObject(item.arguments) };
      if (item.id !== undefined) functionCall.id = item.id;
      const part: JsonObject = { functionCall };
      if (item.signature !== undefined) part.thoughtSignature = item.signature;
      return { role: "model", part };
    }
    case "tool_result": {
      const call = calls.get(item.call_id);
      const functionResponse: JsonObject = {
        name: call?.name ?? "unknown_function",
        response: item.is_error === true ? { error: item.output } : { output: item.output },
      };
      if (call?.id !== undefined) functionResponse.id = call.id;
      return { role: "user", part: { functionResponse } };
    }
    default: {
      const unreachable: never = item;
      throw new Error(`unknown item ${JSON.stringify(unreachable)}`);
    }
  }
}

/** The `contents` array: one content per run of same-side items. */
export function geminiContents(items: readonly Item[]): JsonObject[] {
  const calls = new Map<string, ToolCallItem>();
  for (const item of items) if (item.type === "tool_call") calls.set(item.call_id, item);
  const contents: { role: Role; parts: JsonObject[] }[] = [];
  for (const item of items) {
    const entry = partOf(item, calls);
    if (entry === undefined) continue;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === entry.role) last.parts.push(entry.part);
    else contents.push({ role: entry.role, parts: [entry.part] });
  }
  return contents.map((content) => ({ role: content.role, parts: content.parts }));
}

/** The full streaming request body. */
export function geminiRequestBody(request: LlmRequest): JsonObject {
  const body: JsonObject = { contents: geminiContents(request.items) };
  if (request.system_prompt !== undefined && request.system_prompt.length > 0) {
    body.systemInstruction = { parts: [{ text: request.system_prompt }] };
  }
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: tool.input_schema,
        })),
      },
    ];
  }
  const { config } = request;
  const generation: JsonObject = {};
  if (config.max_tokens !== undefined) generation.maxOutputTokens = config.max_tokens;
  if (config.temperature !== undefined) generation.temperature = config.temperature;
  if (config.top_p !== undefined) generation.topP = config.top_p;
  if (config.top_k !== undefined) generation.topK = config.top_k;
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    generation.stopSequences = config.stop_sequences as JsonValue;
  }
  if (config.reasoning !== undefined) {
    generation.thinkingConfig =
      "budget_tokens" in config.reasoning
        ? { thinkingBudget: config.reasoning.budget_tokens, includeThoughts: true }
        : { thinkingLevel: thinkingLevels[config.reasoning.effort], includeThoughts: true };
  }
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  return body;
}
