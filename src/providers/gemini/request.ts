/**
 * Gemini `streamGenerateContent` request bodies: `systemInstruction` carries the system prompt,
 * `contents` the history with roles `user` and `model` (consecutive items of one side share a
 * content, so parallel calls and their responses stay together), tool calls as `functionCall`
 * parts and tool results as `functionResponse` parts (`{output}` or `{error}`). Every thought
 * signature goes back on the very part that carried it — a function call, a text part, or a
 * thought part for signed reasoning — and only to the model that produced it. For models that
 * require a signature on each function call of the current turn (Gemini 3), a call without one
 * (from another model, or an older log) gets the documented validator-skip value instead of a
 * 400. Tool parameters go as `parametersJsonSchema` (full JSON Schema, unlike `parameters`,
 * which takes only an OpenAPI subset), with local `$ref`s inlined (tool-schema.ts). Thinking follows the capability table: a budget
 * (Gemini 2.5) or a level (Gemini 3).
 *
 * Boundary rule: pure functions from an LlmRequest to the wire body.
 */
import type { Item, ItemOrigin, ToolCallItem } from "../../model/items.js";
import { messageText, payloadFits } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import { toolArgumentsObject } from "../../model/tool-arguments.js";
import { unreachable } from "../../model/unreachable.js";
import { pairedItems, resultText } from "../history-projection.js";
import {
  budgetFor,
  type GeminiThinkingLevel,
  levelFor,
  type ModelCapabilities,
  samplingParameters,
} from "../model-capabilities.js";
import { geminiParametersSchema } from "./tool-schema.js";

/** Protocol options that come from the profile. */
export interface GeminiRequestOptions {
  capabilities: ModelCapabilities;
  origin: ItemOrigin;
}

/** What Gemini documents for a function call whose real signature is not available. */
export const skipSignatureValidation = "skip_thought_signature_validator";

type Role = "user" | "model";

type GeminiPart =
  | { text: string; thought?: boolean; thoughtSignature?: string }
  | { functionCall: { name: string; args: JsonObject; id?: string }; thoughtSignature?: string }
  | { functionResponse: { name: string; response: JsonObject; id?: string } };

export interface GeminiContent {
  role: Role;
  parts: GeminiPart[];
}

type GeminiThinkingConfig =
  | { thinkingBudget: number; includeThoughts: boolean }
  | { thinkingLevel: GeminiThinkingLevel; includeThoughts: boolean };

interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stopSequences?: string[];
  thinkingConfig?: GeminiThinkingConfig;
}

/** The request body as sent. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: { text: string }[] };
  tools?: {
    functionDeclarations: { name: string; description: string; parametersJsonSchema: JsonObject }[];
  }[];
  generationConfig?: GeminiGenerationConfig;
}

function partOf(
  item: Item,
  calls: ReadonlyMap<string, ToolCallItem>,
  origin: ItemOrigin,
): { role: Role; part: GeminiPart } | undefined {
  switch (item.type) {
    case "message": {
      const text = messageText(item);
      if (item.role !== "assistant") return text.length === 0 ? undefined : { role: "user", part: { text } };
      const part: GeminiPart = { text };
      if (item.signature !== undefined && payloadFits(item.origin, origin))
        part.thoughtSignature = item.signature;
      return text.length === 0 && part.thoughtSignature === undefined ? undefined : { role: "model", part };
    }
    case "reasoning":
      if (item.signature === undefined || !payloadFits(item.origin, origin)) return undefined;
      return {
        role: "model",
        part:
          item.text.length > 0
            ? { text: item.text, thought: true, thoughtSignature: item.signature }
            : { text: "", thoughtSignature: item.signature },
      };
    case "tool_call": {
      const functionCall: { name: string; args: JsonObject; id?: string } = {
        name: item.name,
        args: toolArgumentsObject(item.arguments) ?? {},
      };
      if (item.id !== undefined) functionCall.id = item.id;
      const part: GeminiPart = { functionCall };
      if (item.signature !== undefined && payloadFits(item.origin, origin))
        part.thoughtSignature = item.signature;
      return { role: "model", part };
    }
    case "tool_result": {
      const call = calls.get(item.call_id);
      const functionResponse: { name: string; response: JsonObject; id?: string } = {
        name: call?.name ?? "unknown_function",
        response: item.is_error === true ? { error: resultText(item) } : { output: item.output },
      };
      if (call?.id !== undefined) functionResponse.id = call.id;
      return { role: "user", part: { functionResponse } };
    }
    default:
      unreachable(item, "unknown item");
  }
}

/**
 * The position of the last user message that is sent (an empty one is not): the current turn
 * is everything after it.
 */
function currentTurnStart(items: readonly Item[]): number {
  for (let position = items.length - 1; position >= 0; position--) {
    const item = items[position]!;
    if (item.type === "message" && item.role === "user" && messageText(item).length > 0) return position + 1;
  }
  return 0;
}

/**
 * Gives the first function call of each model step of the current turn the validator-skip
 * signature when it has no signature of its own (Gemini signs only the first of parallel calls,
 * and checks that one).
 */
function signCurrentTurn(contents: GeminiContent[], firstCurrent: number): void {
  for (const content of contents.slice(firstCurrent)) {
    if (content.role !== "model") continue;
    // Gemini signs the first call of a step and checks that one.
    const first = content.parts.find((part) => "functionCall" in part);
    if (first === undefined || first.thoughtSignature !== undefined) continue;
    (first as { thoughtSignature?: string }).thoughtSignature = skipSignatureValidation;
  }
}

/** The `contents` array: one content per run of same-side items. */
function geminiContents(history: readonly Item[], options: GeminiRequestOptions): GeminiContent[] {
  const items = pairedItems(history);
  const calls = new Map<string, ToolCallItem>();
  for (const item of items) if (item.type === "tool_call") calls.set(item.call_id, item);
  const turnStart = currentTurnStart(items);
  const contents: GeminiContent[] = [];
  let firstCurrent = -1;
  items.forEach((item, position) => {
    const entry = partOf(item, calls, options.origin);
    if (entry === undefined) return;
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === entry.role) last.parts.push(entry.part);
    else contents.push({ role: entry.role, parts: [entry.part] });
    if (firstCurrent < 0 && position >= turnStart) firstCurrent = contents.length - 1;
  });
  if (options.capabilities.thoughtSignatures && firstCurrent >= 0) signCurrentTurn(contents, firstCurrent);
  return contents;
}

function thinkingConfig(
  request: LlmRequest,
  capabilities: ModelCapabilities,
): GeminiThinkingConfig | undefined {
  const { reasoning } = request.config;
  if (reasoning === undefined) return undefined;
  const rule = capabilities.reasoning;
  switch (rule.style) {
    case "gemini_budget":
      return { thinkingBudget: budgetFor(reasoning, rule.budgets), includeThoughts: true };
    case "gemini_level":
      return { thinkingLevel: levelFor(reasoning, rule.levels), includeThoughts: true };
    default:
      return undefined;
  }
}

/** The full streaming request body. */
export function geminiRequestBody(request: LlmRequest, options: GeminiRequestOptions): GeminiRequestBody {
  const body: GeminiRequestBody = { contents: geminiContents(request.items, options) };
  if (request.system_prompt !== undefined && request.system_prompt.length > 0) {
    body.systemInstruction = { parts: [{ text: request.system_prompt }] };
  }
  if (request.tools.length > 0) {
    body.tools = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          description: tool.description,
          parametersJsonSchema: geminiParametersSchema(tool.input_schema),
        })),
      },
    ];
  }
  const { config } = request;
  const generation: GeminiGenerationConfig = {};
  if (config.max_tokens !== undefined) generation.maxOutputTokens = config.max_tokens;
  const sampling = samplingParameters(config, options.capabilities);
  if (sampling.temperature !== undefined) generation.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) generation.topP = sampling.top_p;
  if (sampling.top_k !== undefined) generation.topK = sampling.top_k;
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    generation.stopSequences = [...config.stop_sequences];
  }
  const thinking = thinkingConfig(request, options.capabilities);
  if (thinking !== undefined) generation.thinkingConfig = thinking;
  if (Object.keys(generation).length > 0) body.generationConfig = generation;
  return body;
}
