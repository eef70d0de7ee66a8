/**
 * OpenAI's own acceptance rules (its models on Chat Completions and Responses), as data: what
 * a model that does not reason refuses, what a reasoning model refuses, and what a stored
 * Responses conversation needs. Model rules are keyed by model name, so requests for neutral
 * names ("test-model") pass them.
 *
 * Boundary rule: pure checks of a request body (plus the item pairs the fake issued).
 */
import { type Body, modelsLike, objects, openAiError, type VendorRule } from "./vendor-rule.js";

/** OpenAI models that do not reason (and refuse encrypted reasoning). */
const nonReasoningOpenAi = /^(gpt-4|gpt-3\.5|chatgpt|gpt-5(\.\d+)?-chat)/;
/** OpenAI reasoning models (the `-chat` variants of gpt-5 excepted). */
const reasoningOpenAi = /^(o[134]|gpt-5)(?!.*-chat)/;

/** A stored item sent by id without the reasoning item it came after, or undefined. */
function storedWithoutReasoning(
  body: Body,
  pairs: ReadonlyMap<string, string>,
): ReturnType<VendorRule["check"]> {
  if (body.store !== true) return undefined;
  const input = objects(body.input);
  const reasoningIds = new Set(input.filter((item) => item.type === "reasoning").map((item) => item.id));
  for (const item of input) {
    const stored = item.type === "function_call" || item.type === "message";
    if (!stored || typeof item.id !== "string") continue;
    const reasoningId = pairs.get(item.id);
    if (reasoningId !== undefined && !reasoningIds.has(reasoningId)) {
      return openAiError(
        `Item '${item.id}' of type '${String(item.type)}' was provided without its required 'reasoning' item: '${reasoningId}'.`,
        "input",
      );
    }
  }
  return undefined;
}

export const openAiRules: readonly VendorRule[] = [
  {
    id: "openai.responses.encrypted-content-needs-reasoning",
    protocol: "responses",
    source:
      'OpenAI Responses 400 (param "include"): Encrypted content is not supported with this model. (gpt-4o, gpt-4.1 with include: ["reasoning.encrypted_content"])',
    applies: modelsLike(nonReasoningOpenAi),
    check: (body) =>
      Array.isArray(body.include) && body.include.includes("reasoning.encrypted_content")
        ? openAiError("Encrypted content is not supported with this model.", "include")
        : undefined,
  },
  {
    id: "openai.responses.stored-item-with-its-reasoning",
    protocol: "responses",
    source:
      "OpenAI Responses 400 (store: true, param \"input\"): Item 'fc_…' of type 'function_call' was provided without its required 'reasoning' item: 'rs_…'.",
    applies: () => true,
    check: (body, issued) => storedWithoutReasoning(body, issued.pairs),
  },
  {
    id: "openai.chat.no-top-k",
    protocol: "chat_completions",
    source: "OpenAI Chat Completions 400: Unrecognized request argument supplied: top_k",
    applies: modelsLike(/^(gpt-|o[134]|chatgpt)/),
    check: (body) =>
      body.top_k === undefined
        ? undefined
        : openAiError("Unrecognized request argument supplied: top_k", null),
  },
  {
    id: "openai.chat.reasoning-model-no-temperature",
    protocol: "chat_completions",
    source:
      "OpenAI Chat Completions 400 (o-series, gpt-5; code unsupported_parameter): Unsupported parameter: 'temperature' is not supported with this model.",
    applies: modelsLike(reasoningOpenAi),
    check: (body) =>
      body.temperature === undefined
        ? undefined
        : openAiError(
            "Unsupported parameter: 'temperature' is not supported with this model.",
            "temperature",
            "unsupported_parameter",
          ),
  },
];
