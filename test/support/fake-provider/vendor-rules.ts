/**
 * The 400s real vendors answer to requests their models cannot take, reproduced with the
 * vendors' own messages so a client that breaks a rule fails here as it would in production:
 * - Responses: `include: ["reasoning.encrypted_content"]` to a model that does not reason;
 *   with `store: true`, a `function_call` sent by id without the reasoning item it came with;
 * - Chat Completions: DeepSeek thinking-mode tool loops without `reasoning_content`; `top_k`,
 *   or temperature on a reasoning model, sent to OpenAI; an effort Ollama does not know;
 * - Anthropic: `thinking.type: "enabled"` to an adaptive-only model, a budget not below
 *   `max_tokens`, sampling parameters with thinking or on a model that takes none;
 * - Gemini: `thinkingLevel` to Gemini 2.5; a Gemini 3 function call of the current turn
 *   without its thought signature.
 * - every vendor: tool names outside its pattern; Gemini also a `$ref` with siblings other than
 *   `description`/`default`, or one that does not resolve.
 * - every vendor: a tool call without its result right after it, or a result without its call
 *   (pairing-rules.ts); Anthropic also a thinking block whose signature the fake issued for
 *   another text (an edited thinking block).
 * Model rules are keyed by model name, so requests for neutral names ("test-model") pass them.
 *
 * Boundary rule: pure checks of a request body (plus the call/reasoning pairs the fake issued).
 */
import { pairingRule, signatureRule } from "./pairing-rules.js";
import type { FakeProtocol, HttpErrorReply } from "./reply.js";
import { bookRejection } from "./rule-book.js";

type Body = Record<string, unknown>;

function isObject(value: unknown): value is Body {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function objects(value: unknown): Body[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

function openAiError(message: string, param: string | null, code: string | null = null): HttpErrorReply {
  return {
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ error: { message, type: "invalid_request_error", param, code } }),
  };
}

function anthropicError(message: string): HttpErrorReply {
  return {
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }),
  };
}

function geminiError(message: string): HttpErrorReply {
  return {
    kind: "http_error",
    status: 400,
    body: JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT" } }),
  };
}

/** OpenAI models that do not reason (and refuse encrypted reasoning). */
const nonReasoningOpenAi = /^(gpt-4|gpt-3\.5|chatgpt|gpt-5(\.\d+)?-chat)/;
const reasoningOpenAi = /^(o[134]|gpt-5)/;

function responsesRule(body: Body, pairs: ReadonlyMap<string, string>): HttpErrorReply | undefined {
  const model = String(body.model ?? "");
  const include = Array.isArray(body.include) ? body.include : [];
  if (include.includes("reasoning.encrypted_content") && nonReasoningOpenAi.test(model)) {
    return openAiError("Encrypted content is not supported with this model.", "include");
  }
  if (body.store === true) {
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
  }
  return undefined;
}

const ollamaEfforts = new Set(["high", "medium", "low", "none"]);

function chatRule(body: Body): HttpErrorReply | undefined {
  const model = String(body.model ?? "");
  if (model.includes("deepseek")) {
    const messages = objects(body.messages);
    const index = messages.findIndex(
      (message) =>
        message.role === "assistant" &&
        Array.isArray(message.tool_calls) &&
        !("reasoning_content" in message),
    );
    if (index >= 0) {
      return openAiError(
        `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
        null,
        "invalid_request_error",
      );
    }
  }
  if (/^(gpt-|o[134]|chatgpt)/.test(model) && body.top_k !== undefined) {
    return openAiError("Unrecognized request argument supplied: top_k", null);
  }
  if (reasoningOpenAi.test(model) && !model.includes("-chat") && body.temperature !== undefined) {
    return openAiError(
      "Unsupported parameter: 'temperature' is not supported with this model.",
      "temperature",
      "unsupported_parameter",
    );
  }
  // Ollama model names carry a tag ("qwen3:8b").
  if (
    model.includes(":") &&
    typeof body.reasoning_effort === "string" &&
    !ollamaEfforts.has(body.reasoning_effort)
  ) {
    return {
      kind: "http_error",
      status: 400,
      body: JSON.stringify({
        error: {
          message: `invalid reasoning value: '${body.reasoning_effort}' (must be "high", "medium", "low", or "none")`,
          type: "invalid_request_error",
          param: null,
          code: null,
        },
      }),
    };
  }
  return undefined;
}

/** Claude models that take adaptive thinking only (and no sampling parameters). */
const adaptiveOnlyClaude = /claude-(opus-4-[7-9]|mythos|[a-z]+-5)/;

function anthropicRule(body: Body): HttpErrorReply | undefined {
  const model = String(body.model ?? "");
  const thinking = isObject(body.thinking) ? body.thinking : undefined;
  const sampling = ["temperature", "top_p", "top_k"].filter((key) => body[key] !== undefined);
  if (adaptiveOnlyClaude.test(model)) {
    if (thinking?.type === "enabled") {
      return anthropicError(
        '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
      );
    }
    if (sampling.length > 0) return anthropicError(`\`${sampling[0]}\` is deprecated for this model.`);
  }
  if (thinking?.type === "enabled") {
    const budget = Number(thinking.budget_tokens);
    if (Number(body.max_tokens) <= budget) {
      return anthropicError(
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
      );
    }
    if (body.temperature !== undefined && body.temperature !== 1) {
      return anthropicError(
        "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility",
      );
    }
    if (body.top_k !== undefined) {
      return anthropicError(
        "`top_k` cannot be set when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility",
      );
    }
  }
  return undefined;
}

function geminiRule(model: string, body: Body): HttpErrorReply | undefined {
  const generation = isObject(body.generationConfig) ? body.generationConfig : {};
  const thinking = isObject(generation.thinkingConfig) ? generation.thinkingConfig : {};
  if (model.startsWith("gemini-2.5") && thinking.thinkingLevel !== undefined) {
    return geminiError("Thinking level is not supported for this model.");
  }
  if (/^gemini-3/.test(model)) {
    const contents = objects(body.contents);
    let turnStart = 0;
    contents.forEach((content, position) => {
      const isUserText =
        content.role === "user" && objects(content.parts).some((part) => typeof part.text === "string");
      if (isUserText) turnStart = position + 1;
    });
    for (let position = turnStart; position < contents.length; position++) {
      const content = contents[position]!;
      if (content.role !== "model") continue;
      const calls = objects(content.parts).filter((part) => isObject(part.functionCall));
      const first = calls[0];
      if (first !== undefined && first.thoughtSignature === undefined) {
        const name = String((first.functionCall as Body).name);
        return geminiError(
          `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${position + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
        );
      }
    }
  }
  return undefined;
}

/** Tool names as OpenAI takes them (Chat Completions and Responses). */
const openAiToolName = /^[a-zA-Z0-9_-]{1,64}$/;
const anthropicToolName = /^[a-zA-Z0-9_-]{1,128}$/;
const geminiToolName = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** Tool declarations the vendor refuses whatever the model: names, and Gemini's `$ref` rules. */
function toolRule(protocol: FakeProtocol, body: Body): HttpErrorReply | undefined {
  switch (protocol) {
    case "chat_completions":
    case "responses": {
      const tools = objects(body.tools);
      for (const [index, tool] of tools.entries()) {
        const chat = protocol === "chat_completions";
        const name = String(chat ? (isObject(tool.function) ? tool.function.name : "") : tool.name);
        const param = chat ? `tools[${index}].function.name` : `tools[${index}].name`;
        if (name.length > 64) {
          return openAiError(
            `Invalid '${param}': string too long. Expected a string with maximum length 64, but got a string with length ${name.length} instead.`,
            param,
            "string_above_max_length",
          );
        }
        if (!openAiToolName.test(name)) {
          return openAiError(
            `Invalid '${param}': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
            param,
            "invalid_value",
          );
        }
      }
      return undefined;
    }
    case "anthropic": {
      for (const [index, tool] of objects(body.tools).entries()) {
        if (!anthropicToolName.test(String(tool.name))) {
          return anthropicError(
            `tools.${index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'`,
          );
        }
      }
      return undefined;
    }
    case "gemini": {
      const declarations = objects(body.tools).flatMap((tool) => objects(tool.functionDeclarations));
      for (const [index, declaration] of declarations.entries()) {
        if (!geminiToolName.test(String(declaration.name))) {
          return geminiError(
            `* GenerateContentRequest.tools[0].function_declarations[${index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.`,
          );
        }
        if (isObject(declaration.parametersJsonSchema)) {
          const problem = geminiReferenceProblem(
            declaration.parametersJsonSchema,
            declaration.parametersJsonSchema,
            "",
          );
          if (problem !== undefined) return geminiError(problem);
        }
      }
      return undefined;
    }
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}

/** Gemini's rules for `$ref` in a JSON Schema: only `description` and `default` beside it, and it must resolve. */
function geminiReferenceProblem(node: unknown, root: Body, at: string): string | undefined {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) {
      const problem = geminiReferenceProblem(item, root, `${at}.${index}`);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (typeof node.$ref === "string") {
    const ref = node.$ref;
    if (Object.keys(node).some((key) => !["$ref", "description", "default"].includes(key))) {
      const name = ref.slice(ref.lastIndexOf("/") + 1);
      return `$ref '${name}' was set alongside unsupported fields. If a schema node has $ref set, then only description and default can be set alongside it`;
    }
    let target: unknown = root;
    for (const token of ref
      .replace(/^#\/?/, "")
      .split("/")
      .filter((part) => part !== "")) {
      target = isObject(target) ? target[token] : undefined;
    }
    if (!ref.startsWith("#") || target === undefined)
      return `reference to undefined schema at ${at.slice(1)}`;
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    const problem = geminiReferenceProblem(value, root, `${at}.${key}`);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/**
 * The vendor's 400 for a request its model refuses, or undefined when the request passes.
 * `pairs` maps each Responses function call item id to the reasoning item it came after.
 */
export function vendorRejection(
  protocol: FakeProtocol,
  body: unknown,
  model: string,
  pairs: ReadonlyMap<string, string>,
  signatures: ReadonlyMap<string, string> = new Map(),
): HttpErrorReply | undefined {
  if (!isObject(body)) return undefined;
  const tools =
    toolRule(protocol, body) ?? pairingRule(protocol, body) ?? signatureRule(protocol, body, signatures);
  if (tools !== undefined) return tools;
  return modelRule(protocol, body, model, pairs) ?? bookRejection(protocol, body, model);
}

function modelRule(
  protocol: FakeProtocol,
  body: Body,
  model: string,
  pairs: ReadonlyMap<string, string>,
): HttpErrorReply | undefined {
  switch (protocol) {
    case "responses":
      return responsesRule(body, pairs);
    case "chat_completions":
      return chatRule(body);
    case "anthropic":
      return anthropicRule(body);
    case "gemini":
      return geminiRule(model, body);
    default: {
      const unreachable: never = protocol;
      throw new Error(`unknown protocol ${String(unreachable)}`);
    }
  }
}
