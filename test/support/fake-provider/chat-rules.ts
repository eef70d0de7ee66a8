/**
 * Chat Completions acceptance rules of servers behind the protocol (beyond OpenAI's own, in
 * openai-rules.ts), as data. Model names decide which server's rules bind, as elsewhere in the
 * fake: a Mistral API model id (`mistral-large-latest`, `devstral-2512`: no Ollama `:tag`, no
 * `org/` prefix), a Kimi thinking model, Gemini 3 on Google's endpoint (`gemini-3-…`) or on
 * OpenRouter (`google/gemini-3-…`).
 *
 * Boundary rule: pure checks of a request body.
 */
import {
  type Body,
  currentTurnStart,
  extraForbidden,
  geminiError,
  isObject,
  objects,
  openAiError,
  type VendorRule,
} from "./vendor-rule.js";

/** Mistral's API model ids (its own names, not an Ollama tag or a Hugging Face path). */
const mistralApiModel =
  /^(mistral|magistral|codestral|devstral|ministral|pixtral|voxtral|open-mistral|open-mixtral|labs-devstral)(-[a-z0-9.]+)+$/;

/** The request fields Mistral's chat completions schema declares. */
const mistralFields = new Set([
  "model",
  "messages",
  "temperature",
  "top_p",
  "max_tokens",
  "stream",
  "stop",
  "random_seed",
  "response_format",
  "tools",
  "tool_choice",
  "presence_penalty",
  "frequency_penalty",
  "n",
  "prediction",
  "parallel_tool_calls",
  "prompt_mode",
  "safe_prompt",
]);
const mistralMessageFields = new Set(["role", "content", "tool_calls", "tool_call_id", "name", "prefix"]);
const mistralCallFields = new Set(["id", "type", "function", "index"]);

function mistralSchema(body: Body): ReturnType<VendorRule["check"]> {
  const refused: (string | number)[][] = [];
  for (const key of Object.keys(body)) if (!mistralFields.has(key)) refused.push([key]);
  objects(body.messages).forEach((message, index) => {
    const role = String(message.role);
    for (const key of Object.keys(message)) {
      if (!mistralMessageFields.has(key)) refused.push(["messages", index, role, key]);
    }
    objects(message.tool_calls).forEach((call, at) => {
      for (const key of Object.keys(call)) {
        if (!mistralCallFields.has(key)) refused.push(["messages", index, role, "tool_calls", at, key]);
      }
    });
  });
  return refused.length === 0 ? undefined : extraForbidden(refused);
}

/** Kimi K2 Thinking, K2.5 and later: thinking is on by default. */
const kimiThinking = /kimi-k(2[.p][5-9]|2-thinking|[3-9])/i;

/** The first call of an assistant message, and whether it carries a Gemini signature. */
function firstCallSigned(message: Body): boolean | undefined {
  const first = objects(message.tool_calls)[0];
  if (first === undefined) return undefined;
  const google = isObject(first.extra_content) ? first.extra_content.google : undefined;
  return isObject(google) && typeof google.thought_signature === "string";
}

function hasEncryptedDetail(message: Body): boolean {
  return objects(message.reasoning_details).some((detail) => detail.type === "reasoning.encrypted");
}

const isUserText = (message: Body) => message.role === "user";

/** The Gemini 3 refusal for the call of the current turn at `position` without a signature. */
function missingSignature(body: Body, accepts: (message: Body) => boolean): ReturnType<VendorRule["check"]> {
  const messages = objects(body.messages);
  for (let position = currentTurnStart(messages, isUserText); position < messages.length; position++) {
    const message = messages[position]!;
    if (message.role !== "assistant" || firstCallSigned(message) === undefined || accepts(message)) continue;
    const name = String((objects(message.tool_calls)[0]!.function as Body | undefined)?.name);
    return geminiError(
      `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
    );
  }
  return undefined;
}

/** The efforts Ollama's OpenAI layer takes. */
const ollamaEfforts = new Set(["high", "medium", "low", "none"]);

/** The first assistant message with tool calls but no `reasoning_content`, or -1. */
function toolCallsWithoutReasoning(body: Body): number {
  return objects(body.messages).findIndex(
    (message) =>
      message.role === "assistant" && Array.isArray(message.tool_calls) && !("reasoning_content" in message),
  );
}

export const chatRules: readonly VendorRule[] = [
  {
    id: "deepseek.reasoning-content-on-tool-calls",
    protocol: "chat_completions",
    source:
      "DeepSeek 400 (thinking mode, api-docs.deepseek.com/guides/thinking_mode#tool-calls): Missing `reasoning_content` field in the assistant message at message index N",
    applies: (model) => model.includes("deepseek"),
    check(body) {
      const index = toolCallsWithoutReasoning(body);
      return index < 0
        ? undefined
        : openAiError(
            `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
            null,
            "invalid_request_error",
          );
    },
  },
  {
    id: "ollama.effort-values",
    protocol: "chat_completions",
    source:
      'Ollama\'s OpenAI layer 400: invalid reasoning value: \'minimal\' (must be "high", "medium", "low", or "none")',
    // Ollama model names carry a tag ("qwen3:8b").
    applies: (model) => model.includes(":"),
    check: (body) =>
      typeof body.reasoning_effort === "string" && !ollamaEfforts.has(body.reasoning_effort)
        ? openAiError(
            `invalid reasoning value: '${body.reasoning_effort}' (must be "high", "medium", "low", or "none")`,
            null,
          )
        : undefined,
  },
  {
    id: "mistral.declared-fields-only",
    protocol: "chat_completions",
    source:
      'Mistral API 422: {"type":"extra_forbidden","loc":["body","stream_options"],"msg":"Extra inputs are not permitted"} (also max_completion_tokens, messages[].reasoning_content)',
    applies: (model) => mistralApiModel.test(model),
    check: mistralSchema,
  },
  {
    id: "kimi.reasoning-content-on-tool-calls",
    protocol: "chat_completions",
    source:
      "Moonshot 400: thinking is enabled but reasoning_content is missing in assistant tool call message at index N (platform.moonshot.ai, multi-step tool calls)",
    applies: (model) => kimiThinking.test(model),
    check(body) {
      const index = toolCallsWithoutReasoning(body);
      return index < 0
        ? undefined
        : openAiError(
            `thinking is enabled but reasoning_content is missing in assistant tool call message at index ${index}`,
            null,
          );
    },
  },
  {
    id: "chat.arguments-are-json",
    protocol: "chat_completions",
    source:
      "Ollama's OpenAI layer decodes each assistant tool call's `arguments` into an object and refuses the whole request when it cannot (400)",
    applies: () => true,
    check(body) {
      for (const [index, message] of objects(body.messages).entries()) {
        for (const call of objects(message.tool_calls)) {
          const fn = isObject(call.function) ? call.function : {};
          let parsed: unknown;
          try {
            parsed = JSON.parse(String(fn.arguments));
          } catch {
            parsed = undefined;
          }
          if (!isObject(parsed)) {
            return openAiError(
              `invalid tool call arguments in message ${index}: ${String(fn.arguments).slice(0, 40)}`,
              `messages.[${index}].tool_calls`,
            );
          }
        }
      }
      return undefined;
    },
  },
  {
    id: "chat.assistant-content-or-calls",
    protocol: "chat_completions",
    source: "OpenAI 400: Invalid value for 'content': expected a string, got null.",
    applies: () => true,
    check(body) {
      const index = objects(body.messages).findIndex(
        (message) =>
          message.role === "assistant" &&
          typeof message.content !== "string" &&
          !Array.isArray(message.tool_calls),
      );
      return index < 0
        ? undefined
        : openAiError(
            "Invalid value for 'content': expected a string, got null.",
            `messages.[${index}].content`,
          );
    },
  },
  {
    id: "gemini-openai.thought-signature",
    protocol: "chat_completions",
    source:
      "Gemini 3 over https://generativelanguage.googleapis.com/v1beta/openai/: tool_calls[].extra_content.google.thought_signature (ai.google.dev/gemini-api/docs/thought-signatures#openai); without it the Gemini 400",
    applies: (model) => /^gemini-3/.test(model),
    check: (body) => missingSignature(body, (message) => firstCallSigned(message) === true),
  },
  {
    id: "openrouter-gemini.reasoning-details",
    protocol: "chat_completions",
    source:
      "OpenRouter (openrouter.ai/docs, reasoning tokens: preserving reasoning blocks): Gemini 3's signature rides in reasoning_details (reasoning.encrypted); without it Gemini's 400",
    applies: (model) => /^google\/gemini-3/.test(model),
    check: (body) =>
      missingSignature(body, (message) => hasEncryptedDetail(message) || firstCallSigned(message) === true),
  },
];
