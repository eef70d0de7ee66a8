/**
 * Anthropic Messages acceptance rules, as data: signed thinking, thinking and sampling per
 * model, and content (pairing of calls and results is in pairing-rules.ts).
 *
 * Boundary rule: pure checks of a request body (plus the signatures the fake issued).
 */
import {
  anthropicError,
  anyModel,
  type Body,
  isObject,
  modelsLike,
  objects,
  type VendorRule,
} from "./vendor-rule.js";

/** Claude models that take adaptive thinking only (and no sampling parameters). */
const adaptiveOnlyClaude = /claude-(opus-4-[7-9]|mythos|[a-z]+-5)/;

/** The request's `thinking` when it is `enabled` (a budget), else undefined. */
function enabledThinking(body: Body): Body | undefined {
  return isObject(body.thinking) && body.thinking.type === "enabled" ? body.thinking : undefined;
}

const thinkingDocs =
  "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking";

/** Claude models that take temperature or top_p, not both: Opus 4.1, the 4.5 and 4.6 models. */
const oneSamplerClaude = /claude-(opus|sonnet|haiku)-4-[1-6]/;

function textBlocks(body: Body): { message: number; block: number; text: string }[] {
  const found: { message: number; block: number; text: string }[] = [];
  objects(body.messages).forEach((message, index) => {
    objects(message.content).forEach((block, at) => {
      if (block.type === "text") found.push({ message: index, block: at, text: String(block.text) });
    });
  });
  return found;
}

export const anthropicRules: readonly VendorRule[] = [
  {
    id: "anthropic.signature-matches-thinking",
    protocol: "anthropic",
    source:
      "Anthropic 400: messages.N.content.M: Invalid `signature` in `thinking` block (a thinking block's text changed after it was signed)",
    applies: anyModel,
    check(body, issued) {
      for (const [index, message] of objects(body.messages).entries()) {
        for (const [at, block] of objects(message.content).entries()) {
          if (block.type !== "thinking" || typeof block.signature !== "string") continue;
          const signed = issued.signatures.get(block.signature);
          if (signed !== undefined && signed !== block.thinking) {
            return anthropicError(
              `messages.${index}.content.${at}: Invalid \`signature\` in \`thinking\` block`,
            );
          }
        }
      }
      return undefined;
    },
  },
  {
    id: "anthropic.adaptive-only-thinking",
    protocol: "anthropic",
    source:
      'Anthropic 400 (Opus 4.7 and later): "thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    applies: modelsLike(adaptiveOnlyClaude),
    check: (body) =>
      enabledThinking(body) === undefined
        ? undefined
        : anthropicError(
            '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
          ),
  },
  {
    id: "anthropic.adaptive-only-no-sampling",
    protocol: "anthropic",
    source:
      "Anthropic 400 (Opus 4.7 and later): `temperature` is deprecated for this model. (also top_p, top_k)",
    applies: modelsLike(adaptiveOnlyClaude),
    check(body) {
      const sampling = ["temperature", "top_p", "top_k"].find((key) => body[key] !== undefined);
      return sampling === undefined
        ? undefined
        : anthropicError(`\`${sampling}\` is deprecated for this model.`);
    },
  },
  {
    id: "anthropic.budget-below-max-tokens",
    protocol: "anthropic",
    source:
      "Anthropic 400: `max_tokens` must be greater than `thinking.budget_tokens` (docs.claude.com, extended thinking: max tokens and context window size)",
    applies: anyModel,
    check(body) {
      const thinking = enabledThinking(body);
      return thinking !== undefined && Number(body.max_tokens) <= Number(thinking.budget_tokens)
        ? anthropicError(
            `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. ${thinkingDocs}#max-tokens-and-context-window-size`,
          )
        : undefined;
    },
  },
  {
    id: "anthropic.thinking-temperature-one",
    protocol: "anthropic",
    source:
      "Anthropic 400: `temperature` may only be set to 1 when thinking is enabled (docs.claude.com, extended thinking: feature compatibility)",
    applies: anyModel,
    check: (body) =>
      enabledThinking(body) !== undefined && body.temperature !== undefined && body.temperature !== 1
        ? anthropicError(
            `\`temperature\` may only be set to 1 when thinking is enabled. ${thinkingDocs}#feature-compatibility`,
          )
        : undefined,
  },
  {
    id: "anthropic.thinking-no-top-k",
    protocol: "anthropic",
    source:
      "Anthropic 400: `top_k` cannot be set when thinking is enabled (docs.claude.com, extended thinking: feature compatibility)",
    applies: anyModel,
    check: (body) =>
      enabledThinking(body) !== undefined && body.top_k !== undefined
        ? anthropicError(
            `\`top_k\` cannot be set when thinking is enabled. ${thinkingDocs}#feature-compatibility`,
          )
        : undefined,
  },
  {
    id: "anthropic.non-empty-text",
    protocol: "anthropic",
    source: "Anthropic 400: messages: text content blocks must be non-empty",
    applies: anyModel,
    check: (body) =>
      textBlocks(body).some((block) => block.text.length === 0)
        ? anthropicError("messages: text content blocks must be non-empty")
        : undefined,
  },
  {
    id: "anthropic.non-whitespace-text",
    protocol: "anthropic",
    source: "Anthropic 400: messages: text content blocks must contain non-whitespace text",
    applies: anyModel,
    check(body) {
      // A whitespace block beside real text in its message is accepted; otherwise it is not.
      for (const message of objects(body.messages)) {
        const texts = objects(message.content)
          .filter((block) => block.type === "text")
          .map((block) => String(block.text));
        const blank = texts.some((text) => text.length > 0 && text.trim().length === 0);
        if (blank && !texts.some((text) => text.trim().length > 0)) {
          return anthropicError("messages: text content blocks must contain non-whitespace text");
        }
      }
      return undefined;
    },
  },
  {
    id: "anthropic.error-result-not-empty",
    protocol: "anthropic",
    source: "Anthropic 400: messages.N.content.M.tool_result: content cannot be empty if `is_error` is true",
    applies: anyModel,
    check(body) {
      for (const [index, message] of objects(body.messages).entries()) {
        for (const [at, block] of objects(message.content).entries()) {
          if (block.type !== "tool_result" || block.is_error !== true) continue;
          const content = block.content;
          const empty =
            content === undefined ||
            (typeof content === "string" && content.length === 0) ||
            (Array.isArray(content) && content.length === 0);
          if (empty) {
            return anthropicError(
              `messages.${index}.content.${at}.tool_result: content cannot be empty if \`is_error\` is true`,
            );
          }
        }
      }
      return undefined;
    },
  },
  {
    id: "anthropic.final-assistant-no-trailing-whitespace",
    protocol: "anthropic",
    source: "Anthropic 400: messages: final assistant content cannot end with trailing whitespace",
    applies: anyModel,
    check(body) {
      const messages = objects(body.messages);
      const last = messages[messages.length - 1];
      if (last?.role !== "assistant") return undefined;
      const blocks = objects(last.content);
      const final = blocks[blocks.length - 1];
      return final?.type === "text" && /\s$/.test(String(final.text))
        ? anthropicError("messages: final assistant content cannot end with trailing whitespace")
        : undefined;
    },
  },
  {
    id: "anthropic.one-sampler",
    protocol: "anthropic",
    source:
      "Anthropic 400 (Sonnet/Haiku 4.5, Opus 4.1, Sonnet 4.6): `temperature` and `top_p` cannot both be specified for this model. Please use only one.",
    applies: (model) => oneSamplerClaude.test(model),
    check: (body) =>
      body.temperature !== undefined && body.top_p !== undefined
        ? anthropicError(
            "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
          )
        : undefined,
  },
  {
    id: "anthropic.thinking-tool-loop-starts-with-thinking",
    protocol: "anthropic",
    source:
      "Anthropic 400: When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). (docs.claude.com, extended thinking with tool use)",
    applies: anyModel,
    check(body) {
      const thinking = body.thinking as Body | undefined;
      if (thinking === undefined || thinking.type === "disabled") return undefined;
      const messages = objects(body.messages);
      const last = messages[messages.length - 1];
      const previous = messages[messages.length - 2];
      if (last?.role !== "user" || previous?.role !== "assistant") return undefined;
      if (!objects(last.content).some((block) => block.type === "tool_result")) return undefined;
      const first = objects(previous.content)[0];
      if (first?.type === "thinking" || first?.type === "redacted_thinking") return undefined;
      return anthropicError(
        `messages.${messages.length - 2}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first?.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking`,
      );
    },
  },
];
