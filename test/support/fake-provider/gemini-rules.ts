/**
 * Gemini's acceptance rules about thinking, as data: which models take a thinking level, and
 * the thought signature Gemini 3 requires on the first function call of each step of the
 * current turn. The model comes from the request's path (`models/{model}:streamGenerateContent`).
 *
 * Boundary rule: pure checks of a request body.
 */
import { type Body, geminiError, isObject, modelsLike, objects, type VendorRule } from "./vendor-rule.js";

/** The index of the first content after the last user content that carries text. */
function currentTurnStart(contents: readonly Body[]): number {
  let start = 0;
  contents.forEach((content, position) => {
    const isUserText =
      content.role === "user" && objects(content.parts).some((part) => typeof part.text === "string");
    if (isUserText) start = position + 1;
  });
  return start;
}

export const geminiRules: readonly VendorRule[] = [
  {
    id: "gemini.thinking-level-not-on-2.5",
    protocol: "gemini",
    source:
      "Gemini API 400 INVALID_ARGUMENT (Gemini 2.5 takes thinkingBudget): Thinking level is not supported for this model.",
    applies: modelsLike(/^gemini-2\.5/),
    check(body) {
      const generation = isObject(body.generationConfig) ? body.generationConfig : {};
      const thinking = isObject(generation.thinkingConfig) ? generation.thinkingConfig : {};
      return thinking.thinkingLevel === undefined
        ? undefined
        : geminiError("Thinking level is not supported for this model.");
    },
  },
  {
    id: "gemini.call-signature-in-current-turn",
    protocol: "gemini",
    source:
      "Gemini 3 400 (ai.google.dev/gemini-api/docs/thought-signatures): Function call is missing a thought_signature in functionCall parts. … position N",
    applies: modelsLike(/^gemini-3/),
    check(body) {
      const contents = objects(body.contents);
      for (let position = currentTurnStart(contents); position < contents.length; position++) {
        const content = contents[position]!;
        if (content.role !== "model") continue;
        const first = objects(content.parts).find((part) => isObject(part.functionCall));
        if (first === undefined || first.thoughtSignature !== undefined) continue;
        const name = String((first.functionCall as Body).name);
        return geminiError(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
      }
      return undefined;
    },
  },
];
