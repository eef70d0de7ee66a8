/**
 * OpenAI Responses request bodies: `instructions` carries the system prompt, `input` the items
 * (messages with their `phase`, `function_call`, `function_call_output`, and `reasoning`).
 *
 * With `store: false` (the default) nothing is kept server-side, so item ids are not sent
 * (they would point at nothing), assistant text goes by value, and reasoning goes back only as
 * `encrypted_content` — asked for with `include` only for models that reason (the capability
 * table; other models answer 400 to it). With `store: true` ids are sent as received, and a
 * reasoning item is sent even when all it has is its id: a `function_call` that follows it is
 * refused without it. Reasoning from another provider or model is never sent, and then
 * neither are the ids of the items of its response (a stored `fc_` or `msg_` item is refused
 * without its reasoning item, so after a model change they go by value). The history passes
 * through `history-projection.ts` first.
 *
 * Boundary rule: pure functions from an LlmRequest to the wire body.
 */
import type { Item, ItemOrigin, MessagePhase } from "../../model/items.js";
import { messageText, payloadFits } from "../../model/items.js";
import type { JsonObject } from "../../model/json.js";
import type { LlmRequest } from "../../model/llm-client.js";
import { unreachable } from "../../model/unreachable.js";
import { pairedEntries, resultText, sendableArguments } from "../history-projection.js";
import type { HistorySources } from "../history-refusal.js";
import {
  levelFor,
  type ModelCapabilities,
  type OpenAiEffort,
  samplingParameters,
} from "../model-capabilities.js";

/** Protocol options that come from the profile. */
export interface ResponsesRequestOptions {
  model: string;
  store: boolean;
  capabilities: ModelCapabilities;
  origin: ItemOrigin;
}

/** An assistant message sent by value (no server-side item to point at). */
interface ResponsesAssistantText {
  type: "message";
  role: "assistant";
  content: string;
  phase?: MessagePhase;
}

/** A stored assistant message, sent with its id. */
interface ResponsesStoredMessage {
  type: "message";
  id: string;
  role: "assistant";
  status: "completed";
  content: { type: "output_text"; text: string; annotations: [] }[];
  phase?: MessagePhase;
}

interface ResponsesUserMessage {
  type: "message";
  role: "user" | "system";
  content: { type: "input_text"; text: string }[];
}

export interface ResponsesReasoning {
  type: "reasoning";
  /** Only with `store: true`. */
  id?: string;
  summary: { type: "summary_text"; text: string }[];
  encrypted_content?: string;
}

interface ResponsesFunctionCall {
  type: "function_call";
  call_id: string;
  name: string;
  arguments: string;
  id?: string;
}

interface ResponsesFunctionOutput {
  type: "function_call_output";
  call_id: string;
  output: string;
}

export type ResponsesInputItem =
  | ResponsesAssistantText
  | ResponsesStoredMessage
  | ResponsesUserMessage
  | ResponsesReasoning
  | ResponsesFunctionCall
  | ResponsesFunctionOutput;

interface ResponsesTool {
  type: "function";
  name: string;
  description: string;
  parameters: JsonObject;
  strict: boolean;
}

/** The request body as sent. */
export interface ResponsesRequestBody {
  model: string;
  input: ResponsesInputItem[];
  stream: true;
  store: boolean;
  include?: "reasoning.encrypted_content"[];
  instructions?: string;
  tools?: ResponsesTool[];
  parallel_tool_calls?: boolean;
  max_output_tokens?: number;
  temperature?: number;
  top_p?: number;
  /** `summary` is dropped for a profile whose organisation may not have summaries (see adapter.ts). */
  reasoning?: { effort: OpenAiEffort; summary?: "auto" };
}

function assistantMessage(
  item: Extract<Item, { type: "message" }>,
  store: boolean,
): ResponsesAssistantText | ResponsesStoredMessage {
  const text = messageText(item);
  if (store && item.id !== undefined) {
    const stored: ResponsesStoredMessage = {
      type: "message",
      id: item.id,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text, annotations: [] }],
    };
    if (item.phase !== undefined) stored.phase = item.phase;
    return stored;
  }
  const message: ResponsesAssistantText = { type: "message", role: "assistant", content: text };
  if (item.phase !== undefined) message.phase = item.phase;
  return message;
}

/**
 * For each item, whether its stored id may be sent: not when its response (the run of output
 * items between two inputs) had reasoning that is not sent, since the stored items of a
 * reasoning model's response are refused without their reasoning item.
 */
function idsAllowed(
  items: readonly Item[],
  options: Pick<ResponsesRequestOptions, "store" | "origin">,
): boolean[] {
  const allowed: boolean[] = items.map(() => options.store);
  if (!options.store) return allowed;
  let runStart = 0;
  const closeRun = (end: number) => {
    // A Responses reasoning item (it has an id) of another model: its items cannot go by id.
    const dropped = items
      .slice(runStart, end)
      .some((item) => item.type === "reasoning" && item.id !== undefined && !reasoningSent(item, options));
    if (dropped) for (let i = runStart; i < end; i++) allowed[i] = false;
  };
  items.forEach((item, position) => {
    const isInput = item.type === "tool_result" || (item.type === "message" && item.role !== "assistant");
    if (isInput) {
      closeRun(position);
      runStart = position + 1;
    }
  });
  closeRun(items.length);
  return allowed;
}

/** Whether a reasoning item goes on the wire (by id when stored, else by its encrypted content). */
function reasoningSent(
  item: Extract<Item, { type: "reasoning" }>,
  options: Pick<ResponsesRequestOptions, "store" | "origin">,
): boolean {
  if (item.redacted === true || !payloadFits(item.origin, options.origin)) return false;
  return (options.store && item.id !== undefined) || item.encrypted_content !== undefined;
}

/**
 * The `input` array for a request; `sources` (when given) gets, per input item, the position of
 * the history item it was built from.
 */
export function responsesInput(
  history: readonly Item[],
  options: Pick<ResponsesRequestOptions, "store" | "origin">,
  sources: HistorySources = [],
): ResponsesInputItem[] {
  const entries = pairedEntries(history);
  const items = entries.map((entry) => entry.item);
  const withIds = idsAllowed(items, options);
  const input: ResponsesInputItem[] = [];
  items.forEach((item, position) => {
    const push = (element: ResponsesInputItem) => {
      input.push(element);
      sources.push([entries[position]?.from]);
    };
    const store = withIds[position] === true;
    switch (item.type) {
      case "message":
        if (item.role === "assistant") {
          // A Gemini-signed empty text has nothing for this protocol.
          if (messageText(item).length > 0 || (store && item.id !== undefined))
            push(assistantMessage(item, store));
        } else
          push({
            type: "message",
            role: item.role,
            content: [{ type: "input_text", text: messageText(item) }],
          });
        break;
      case "reasoning": {
        if (!reasoningSent(item, options)) break;
        const byId = store && item.id !== undefined;
        if (!byId && item.encrypted_content === undefined) break;
        const reasoning: ResponsesReasoning = {
          type: "reasoning",
          summary: (item.summary ?? []).map((text) => ({ type: "summary_text", text })),
        };
        if (byId) reasoning.id = item.id;
        if (item.encrypted_content !== undefined) reasoning.encrypted_content = item.encrypted_content;
        push(reasoning);
        break;
      }
      case "tool_call": {
        const call: ResponsesFunctionCall = {
          type: "function_call",
          call_id: item.call_id,
          name: item.name,
          arguments: sendableArguments(item.arguments),
        };
        if (store && item.id !== undefined) call.id = item.id;
        push(call);
        break;
      }
      case "tool_result":
        push({ type: "function_call_output", call_id: item.call_id, output: resultText(item) });
        break;
      default:
        unreachable(item, "unknown item");
    }
  });
  return input;
}

/** The full streaming request body; `sources` as for `responsesInput`. */
export function responsesRequestBody(
  request: LlmRequest,
  options: ResponsesRequestOptions,
  sources?: HistorySources,
): ResponsesRequestBody {
  const { capabilities } = options;
  const body: ResponsesRequestBody = {
    model: options.model,
    input: responsesInput(request.items, options, sources),
    stream: true,
    store: options.store,
  };
  if (!options.store && capabilities.encryptedReasoning) {
    body.include = ["reasoning.encrypted_content"];
  }
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
  const sampling = samplingParameters(config, capabilities);
  if (sampling.temperature !== undefined) body.temperature = sampling.temperature;
  if (sampling.top_p !== undefined) body.top_p = sampling.top_p;
  if (config.reasoning !== undefined && capabilities.reasoning.style === "effort") {
    body.reasoning = { effort: levelFor(config.reasoning, capabilities.reasoning.levels), summary: "auto" };
  }
  return body;
}
