/**
 * OpenAI Chat Completions request bodies (also Ollama, llama.cpp, vLLM, DeepSeek, Mistral, ...):
 * the system prompt first, user/system messages as they are, each run of assistant items
 * (text, tool calls) as one assistant message with `tool_calls`, each tool result as a
 * `role: "tool"` message. Reasoning goes back only where the model family needs it
 * (`reasoning_content`, DeepSeek and Kimi thinking tool loops): the run's reasoning text when
 * this same model produced it, else an empty string so the field is never missing. OpenRouter's
 * `reasoning_details` and Gemini's thought signatures (`extra_content.google`) go back to the
 * model that produced them; a Gemini 3 call of the current turn without one gets the
 * validator-skip value. Which sampling and effort parameters are sent is the capability
 * table's decision; the history passes through `history-projection.ts` first.
 *
 * Boundary rule: pure functions from an LlmRequest to the wire body.
 */

import { cachedEntry } from "../../model/cached-entry.js";
import type { Item, ItemOrigin, ToolCallItem } from "../../model/items.js";
import { messageText, payloadFits } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import type { ToolMeta } from "../../model/tools.js";
import { unreachable } from "../../model/unreachable.js";
import { skipSignatureValidation } from "../gemini/request.js";
import { type PairedItem, pairedEntries, resultText, sendableArguments } from "../history-projection.js";
import type { HistorySources } from "../history-refusal.js";
import {
  levelFor,
  type ModelCapabilities,
  type OpenAiEffort,
  samplingParameters,
} from "../model-capabilities.js";
import { fixedElement } from "../request-body-json.js";

/** Protocol options that come from the profile. */
export interface ChatRequestOptions {
  model: string;
  maxTokensField: "max_tokens" | "max_completion_tokens";
  capabilities: ModelCapabilities;
  /** This client, to tell its own reasoning from another model's. */
  origin: ItemOrigin;
}

interface ChatToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
  /** Not an OpenAI field: Google's OpenAI-compatible endpoint carries Gemini's thought signature here. */
  extra_content?: { google: { thought_signature: string } };
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string | null;
      tool_calls?: ChatToolCall[];
      /** Not an OpenAI field: DeepSeek's and Kimi's reasoning, required back in thinking tool loops. */
      reasoning_content?: string;
      /** Not an OpenAI field: OpenRouter's reasoning details, resent as received. */
      reasoning_details?: JsonObject[];
    }
  | { role: "tool"; tool_call_id: string; content: string };

interface ChatTool {
  type: "function";
  function: { name: string; description: string; parameters: JsonObject };
}

/** The request body as sent. */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream: true;
  stream_options?: { include_usage: boolean };
  tools?: ChatTool[];
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** Not an OpenAI parameter; local servers (vLLM, llama.cpp, Ollama) honour it. */
  top_k?: number;
  stop?: string[];
  reasoning_effort?: OpenAiEffort;
}

/** The position of the last user message: the current turn is everything after it. */
function currentTurnStart(entries: readonly PairedItem[]): number {
  for (let position = entries.length - 1; position >= 0; position--) {
    const item = entries[position]!.item;
    if (item.type === "message" && item.role === "user") return position + 1;
  }
  return 0;
}

/** What a message came from when nobody asked (never filled in). */
const untraced: (number | undefined)[] = [];

/**
 * The `messages` array for a request; `sources` (when given) gets, per message, the positions
 * of the history items it was built from.
 */
export function chatMessages(
  systemPrompt: string | undefined,
  history: readonly Item[],
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
  sources?: HistorySources,
): ChatMessage[] {
  const entries = pairedEntries(history);
  const turnStart = currentTurnStart(entries);
  const messages: ChatMessage[] = [];
  const push = (message: ChatMessage, from: (number | undefined)[]) => {
    messages.push(message);
    sources?.push(from);
  };
  // A message's one position, as an array only when someone asked where messages came from.
  const only = (from: number | undefined): (number | undefined)[] =>
    sources === undefined ? untraced : [from];
  if (systemPrompt !== undefined && systemPrompt.length > 0) push(systemMessage(systemPrompt, options), []);
  // The assistant items since the last user message or tool result: one assistant message.
  let run: AssistantRun | null = null;
  const flushAssistant = () => {
    if (run === null) return;
    const message =
      run.sources.length === 1 && run.only !== null
        ? plainAnswer(run.only, run, options)
        : assistantMessage(run, options);
    if (message !== null) push(message, run.sources);
    run = null;
  };
  const startRun = (position: number): AssistantRun => (run ??= emptyRun(position >= turnStart));
  entries.forEach(({ item, from }, position) => {
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          // Text after tool calls starts a new assistant message so the calls keep their place.
          if ((run?.calls.length ?? 0) > 0) flushAssistant();
          const assistant = startRun(position);
          assistant.sources.push(from);
          assistant.textItems.push(item);
          assistant.only = item;
        } else {
          flushAssistant();
          push(plainMessage(item), only(from));
        }
        break;
      case "tool_call": {
        const assistant = startRun(position);
        assistant.sources.push(from);
        assistant.calls.push(item);
        break;
      }
      case "reasoning": {
        if ((run?.calls.length ?? 0) > 0) flushAssistant();
        const assistant = startRun(position);
        assistant.sources.push(from);
        if (payloadFits(item.origin, options.origin)) {
          assistant.reasoning.push(item.text);
          if (item.details !== undefined) assistant.details.push(...item.details);
        }
        break;
      }
      case "tool_result":
        flushAssistant();
        push(plainMessage(item), only(from));
        break;
      default:
        unreachable(item, "unknown item");
    }
  });
  flushAssistant();
  return messages;
}

/** A run with nothing in it yet. */
function emptyRun(inCurrentTurn: boolean): AssistantRun {
  return { sources: [], textItems: [], calls: [], reasoning: [], details: [], inCurrentTurn, only: null };
}

/** The message of a user or system message item, or of a tool result: made once per item. */
function plainMessage(
  item: Extract<Item, { type: "message" }> | Extract<Item, { type: "tool_result" }>,
): ChatMessage {
  return item.type === "message"
    ? fixedElement(itemMessages, item, () => ({ role: item.role, content: messageText(item) }))
    : fixedElement(itemMessages, item, () => ({
        role: "tool",
        tool_call_id: item.call_id,
        content: resultText(item),
      }));
}

/** The assistant items of one run (between user messages and tool results), in order. */
interface AssistantRun {
  /** The history positions the items came from. */
  sources: (number | undefined)[];
  /** The run's assistant messages, whose text is joined (only when its message is made). */
  textItems: Extract<Item, { type: "message" }>[];
  calls: ToolCallItem[];
  reasoning: string[];
  details: JsonObject[];
  /** Whether the run belongs to the turn being answered (Gemini 3 checks its first call). */
  inCurrentTurn: boolean;
  /** The run's last assistant message item (the whole run when it is its only source). */
  only: Extract<Item, { type: "message" }> | null;
}

/**
 * The messages made from one history item alone (a user or system message, a tool result):
 * the same frozen element for every request that sends the item (request-body-json.ts). A
 * result whose call goes by another id is a new item (`pairedEntries`), never one of these.
 */
const itemMessages = new WeakMap<Item, Readonly<ChatMessage>>();

/** The assistant messages of runs that are one message item, per client (they depend on its capabilities). */
const plainAnswers = new WeakMap<object, WeakMap<Item, Readonly<ChatMessage>>>();

/** The assistant message of a run that is one message item alone, the same element every request. */
function plainAnswer(
  item: Item,
  run: AssistantRun,
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
): Readonly<ChatMessage> | null {
  const answers = cachedEntry(plainAnswers, options, () => new WeakMap<Item, Readonly<ChatMessage>>());
  const kept = answers.get(item);
  if (kept !== undefined) return kept;
  // An answer without text is no message (and not kept: it is rare).
  const made = assistantMessage(run, options);
  return made === null ? null : fixedElement(answers, item, () => made);
}

/** The system prompt's message, kept per client while the prompt stays the same. */
const systemMessages = new WeakMap<object, Readonly<ChatMessage>>();

function systemMessage(
  prompt: string,
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
): Readonly<ChatMessage> {
  const kept = systemMessages.get(options);
  if (kept !== undefined && kept.content === prompt) return kept;
  const made = Object.freeze({ role: "system" as const, content: prompt });
  systemMessages.set(options, made);
  return made;
}

/** The assistant message of a run, or null for a run with neither text nor calls. */
function assistantMessage(
  run: AssistantRun,
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
): Extract<ChatMessage, { role: "assistant" }> | null {
  const { capabilities } = options;
  const text = run.textItems.map(messageText).join("");
  if (text.length === 0 && run.calls.length === 0) return null;
  const message: Extract<ChatMessage, { role: "assistant" }> = {
    role: "assistant",
    content: text.length > 0 ? text : null,
  };
  if (run.calls.length > 0) message.tool_calls = toolCalls(run.calls, options, run.inCurrentTurn);
  if (capabilities.reasoningContent) message.reasoning_content = run.reasoning.join("");
  if (capabilities.reasoningDetails && run.details.length > 0) message.reasoning_details = run.details;
  return message;
}

/**
 * The `tool_calls` of one assistant message: arguments that are not a JSON object sent as `{}`,
 * a Gemini thought signature back to the model that made it, and (Gemini 3, current turn) the
 * validator-skip value on the first call when it has none (Gemini checks the first one).
 */
function toolCalls(
  calls: readonly ToolCallItem[],
  options: Pick<ChatRequestOptions, "capabilities" | "origin">,
  inCurrentTurn: boolean,
): ChatToolCall[] {
  const wire: ChatToolCall[] = calls.map((call) => {
    const entry: ChatToolCall = {
      id: call.call_id,
      type: "function",
      function: { name: call.name, arguments: sendableArguments(call.arguments) },
    };
    // Only Gemini 3 takes its signatures back (a strict server refuses the field).
    if (
      options.capabilities.thoughtSignatures &&
      call.signature !== undefined &&
      payloadFits(call.origin, options.origin)
    ) {
      entry.extra_content = { google: { thought_signature: call.signature } };
    }
    return entry;
  });
  const first = wire[0];
  if (
    options.capabilities.thoughtSignatures &&
    inCurrentTurn &&
    first !== undefined &&
    first.extra_content === undefined
  ) {
    first.extra_content = { google: { thought_signature: skipSignatureValidation } };
  }
  return wire;
}

/** Each tool's definition as sent, made once per tool (request-body-json.ts). */
const chatTools = new WeakMap<ToolMeta, Readonly<ChatTool>>();

function chatTool(tool: ToolMeta): Readonly<ChatTool> {
  return fixedElement(chatTools, tool, () => ({
    type: "function",
    function: Object.freeze({
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema,
    }),
  }));
}

/** The full streaming request body; `sources` as for `chatMessages`. */
export function chatRequestBody(
  request: LlmRequest,
  options: ChatRequestOptions,
  sources?: HistorySources,
): ChatRequestBody {
  const body: ChatRequestBody = {
    model: options.model,
    messages: chatMessages(request.system_prompt, request.items, options, sources),
    stream: true,
  };
  if (options.capabilities.streamUsage) body.stream_options = { include_usage: true };
  if (request.tools.length > 0) body.tools = request.tools.map(chatTool);
  const { config } = request;
  const { capabilities } = options;
  if (config.max_tokens !== undefined) body[options.maxTokensField] = config.max_tokens;
  Object.assign(body, samplingParameters(config, capabilities));
  if (config.stop_sequences !== undefined && config.stop_sequences.length > 0) {
    body.stop = [...config.stop_sequences];
  }
  if (config.reasoning !== undefined && capabilities.reasoning.style === "effort") {
    body.reasoning_effort = levelFor(config.reasoning, capabilities.reasoning.levels);
  }
  return body;
}
