/**
 * The 400s vendors answer to a conversation whose tool calls and results do not pair up, with
 * the vendors' own messages, as data:
 * - Chat Completions: an assistant message with `tool_calls` not followed by a `tool` message
 *   for each id; a `tool` message that answers no preceding call;
 * - Responses: a `function_call_output` without its `function_call`, a call without its output;
 * - Anthropic: `tool_use` ids without `tool_result` blocks in the next message; a `tool_result`
 *   whose `tool_use` is not in the previous message;
 * - Gemini: a function call turn not followed by as many function responses.
 *
 * Boundary rule: pure checks of a request body.
 */
import type { HttpErrorReply } from "./reply.js";
import {
  anthropicError,
  anyModel,
  type Body,
  geminiError,
  isObject,
  objects,
  openAiError,
  type VendorRule,
} from "./vendor-rule.js";

function chatPairing(body: Body): HttpErrorReply | undefined {
  const messages = objects(body.messages);
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (message.role === "tool") {
      // Reached only when no assistant message before claimed it (answered ones are skipped below).
      return openAiError(
        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
        `messages.[${i}].role`,
      );
    }
    if (message.role !== "assistant" || !Array.isArray(message.tool_calls)) continue;
    const open = new Set(objects(message.tool_calls).map((call) => String(call.id)));
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === "tool"; j++) {
      const id = String(messages[j]!.tool_call_id);
      if (!open.delete(id)) {
        return openAiError(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${j}].role`,
        );
      }
    }
    if (open.size > 0) {
      return openAiError(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
        `messages.[${i + 1}].role`,
      );
    }
    i = j - 1;
  }
  return undefined;
}

function responsesPairing(body: Body): HttpErrorReply | undefined {
  const input = objects(body.input);
  const calls = new Set<string>();
  const outputs = new Set<string>();
  for (const item of input) {
    if (item.type === "function_call") calls.add(String(item.call_id));
    if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!calls.has(id)) {
        return openAiError(`No tool call found for function call output with call_id ${id}.`, "input");
      }
      outputs.add(id);
    }
  }
  for (const id of calls) {
    if (!outputs.has(id)) return openAiError(`No tool output found for function call ${id}.`, "input");
  }
  return undefined;
}

function anthropicPairing(body: Body): HttpErrorReply | undefined {
  const messages = objects(body.messages);
  let expected = new Set<string>();
  for (const [i, message] of messages.entries()) {
    const blocks = objects(message.content);
    if (message.role === "user") {
      const results = blocks.filter((block) => block.type === "tool_result");
      for (const [k, block] of results.entries()) {
        const id = String(block.tool_use_id);
        if (!expected.delete(id)) {
          return anthropicError(
            `messages.${i}.content.${k}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
          );
        }
      }
    }
    if (expected.size > 0) {
      return anthropicError(
        `messages.${i - 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${[...expected].join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
    expected = new Set(
      message.role === "assistant"
        ? blocks.filter((block) => block.type === "tool_use").map((block) => String(block.id))
        : [],
    );
  }
  // Calls of the last message are answered by the next request (the tools run in between).
  return undefined;
}

function geminiPairing(body: Body): HttpErrorReply | undefined {
  const contents = objects(body.contents);
  for (const [i, content] of contents.entries()) {
    const calls = objects(content.parts).filter((part) => isObject(part.functionCall)).length;
    if (content.role !== "model" || calls === 0 || i === contents.length - 1) continue;
    const next = contents[i + 1]!;
    const responses = objects(next.parts).filter((part) => isObject(part.functionResponse)).length;
    if (responses !== calls) {
      return geminiError(
        "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.",
      );
    }
  }
  for (const [i, content] of contents.entries()) {
    const responses = objects(content.parts).filter((part) => isObject(part.functionResponse)).length;
    if (responses === 0) continue;
    const previous = contents[i - 1];
    const calls = objects(previous?.parts).filter((part) => isObject(part.functionCall)).length;
    if (previous?.role !== "model" || calls === 0) {
      return geminiError(
        "Please ensure that function response turn comes immediately after a function call turn.",
      );
    }
  }
  return undefined;
}

export const pairingRules: readonly VendorRule[] = [
  {
    id: "openai.chat.calls-and-results-pair",
    protocol: "chat_completions",
    source:
      "OpenAI 400: An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. … / Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
    applies: anyModel,
    check: chatPairing,
  },
  {
    id: "openai.responses.calls-and-outputs-pair",
    protocol: "responses",
    source:
      "OpenAI Responses 400 (param input): No tool output found for function call call_…. / No tool call found for function call output with call_id call_….",
    applies: anyModel,
    check: responsesPairing,
  },
  {
    id: "anthropic.tool-use-and-results-pair",
    protocol: "anthropic",
    source:
      "Anthropic 400: messages.N: `tool_use` ids were found without `tool_result` blocks immediately after: … / messages.N.content.M: unexpected `tool_use_id` found in `tool_result` blocks: …",
    applies: anyModel,
    check: anthropicPairing,
  },
  {
    id: "gemini.calls-and-responses-pair",
    protocol: "gemini",
    source:
      "Gemini API 400: Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn. / Please ensure that function response turn comes immediately after a function call turn.",
    applies: anyModel,
    check: geminiPairing,
  },
];
