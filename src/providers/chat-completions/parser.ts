/**
 * Chat Completions stream → normalized events. Text has no start event on the wire, so a text
 * block opens at the first non-empty `delta.content`; reasoning arrives as
 * `delta.reasoning_content` (DeepSeek, vLLM, llama.cpp), `delta.reasoning` (Ollama,
 * OpenRouter), `thinking` parts of a `delta.content` array (Mistral, whose text then comes as
 * `text` parts) or a leading `<think>…</think>` in the content (raw passthrough servers), and
 * alternates with text, each switch closing the other block. Tool calls are keyed by
 * `tool_calls[].index` with arguments split across chunks, except that a new `id` at an index
 * already holding another call starts a new call (Ollama sends every parallel call at index 0);
 * a call's block starts once its name is known, carrying Gemini's thought signature when the
 * call brings one in `extra_content.google.thought_signature` (Google's OpenAI-compatible
 * endpoint). OpenRouter's `delta.reasoning_details` are merged by their `index` (text, summary
 * and data concatenated) and end the response as one reasoning block of their own. A non-empty
 * `finish_reason` closes every open block (some servers send `""` on every chunk);
 * `[DONE]` (or the end of the byte stream after a finish reason) ends the response with usage
 * and status. Usage whose total counts reasoning beside `completion_tokens` (xAI) gets the
 * reasoning added to the output. Only choice 0 is read.
 *
 * Boundary rule: a pure state machine over SSE messages.
 */
import { randomUUID } from "node:crypto";
import type { StopReason, StreamEvent } from "../../model/events.js";
import type { JsonObject } from "../../model/json.js";
import { LlmClientError } from "../../model/llm-client.js";
import type { Usage } from "../../model/usage.js";
import { ProtocolParser } from "../protocol-parser.js";
import type { SseMessage } from "../sse-decoder.js";
import { providerStreamErrorOf } from "../stream-errors.js";
import { usageFrom } from "../usage-report.js";
import {
  isWireObject,
  numberAt,
  objectAt,
  parseWireObject,
  stringAt,
  type WireObject,
} from "../wire-json.js";
import { ThinkTagSplitter } from "./think-tags.js";

interface ToolCallState {
  id: string;
  name: string;
  /** The block index once started. */
  index: number | undefined;
  /** Arguments received before the name (some servers send them apart). */
  pendingArguments: string;
  /** Gemini's thought signature, from `extra_content.google.thought_signature`. */
  signature: string | undefined;
}

/** finish_reason → stop reason; unknown values end the turn normally. */
function stopReasonOf(finishReason: string, sawToolCalls: boolean): StopReason {
  switch (finishReason) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "content_filter";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    default:
      // Some local servers answer "stop" even after tool calls.
      return sawToolCalls ? "tool_use" : "end_turn";
  }
}

/** Parser state for one Chat Completions response. */
export class ChatCompletionsParser extends ProtocolParser {
  private textIndex: number | undefined;
  private thinking: { index: number; text: string } | undefined;
  private tools = new Map<number, ToolCallState>();
  /** Wire index → key in `tools` of the call currently at that index. */
  private slots = new Map<number, number>();
  private readonly content = new ThinkTagSplitter();
  private sawToolCalls = false;
  private stopReason: StopReason | undefined;
  private usage: Usage = {};
  /** OpenRouter `reasoning_details` of this response, merged by index. */
  private details: WireObject[] = [];

  // The per-chunk path reads the chunk's fields by name (`chunk.choices`) rather than through
  // the wire-json helpers: a helper's key is a variable, a lookup that is slow on every object
  // shape, and this runs once per delta. The checks are the helpers' own.
  protected read(message: SseMessage, out: StreamEvent[]): void {
    const data = message.data.trim();
    if (data === "[DONE]") {
      this.complete(out);
      return;
    }
    const chunk = parseWireObject(this.provider, data);
    const error = chunk.error;
    if (error !== undefined && error !== null) {
      const detail = isWireObject(error) ? error : undefined;
      // JSON, not String(): a parsed object whose `toString` key holds a value has no string form.
      const fallback = typeof error === "string" ? error : JSON.stringify(error);
      throw providerStreamErrorOf(this.provider, detail, ["code", "type"], { message: fallback });
    }
    this.startResponse(out);
    const usage = chunk.usage;
    if (isWireObject(usage)) this.readUsage(usage);
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return;
    for (let i = 0; i < choices.length; i++) {
      const choice: unknown = choices[i];
      if (!isWireObject(choice)) continue;
      const index = choice.index;
      if (typeof index === "number" && Number.isFinite(index) && index !== 0) continue;
      const delta = choice.delta;
      if (isWireObject(delta)) this.readDelta(delta, out);
      const finishReason = choice.finish_reason;
      if (typeof finishReason === "string" && finishReason.length > 0) {
        this.stopReason = stopReasonOf(finishReason, this.sawToolCalls);
        this.closeAll(out);
      }
    }
  }

  end(): StreamEvent[] {
    // A finish reason is this protocol's last word; `[DONE]` after it is optional.
    if (this.isComplete || this.stopReason === undefined) return this.requireComplete("a finish_reason");
    const out: StreamEvent[] = [];
    this.complete(out);
    return out;
  }

  private readDelta(delta: WireObject, out: StreamEvent[]): void {
    const reasoningContent = delta.reasoning_content;
    const reasoning = typeof reasoningContent === "string" ? reasoningContent : delta.reasoning;
    if (typeof reasoning === "string") this.thinkingText(reasoning, out);
    const content = delta.content;
    if (typeof content === "string") {
      if (this.content.plainText) {
        this.answerText(content, out);
      } else {
        for (const segment of this.content.push(content)) {
          if (segment.kind === "thinking") this.thinkingText(segment.text, out);
          else this.answerText(segment.text, out);
        }
      }
    } else if (Array.isArray(content)) {
      for (const part of content) if (isWireObject(part)) this.contentPart(part, out);
    }
    const details = delta.reasoning_details;
    if (Array.isArray(details)) {
      for (const detail of details) if (isWireObject(detail)) mergeDetail(this.details, detail);
    }
    const refusal = delta.refusal;
    if (typeof refusal === "string") this.answerText(refusal, out);
    const toolCalls = delta.tool_calls;
    if (Array.isArray(toolCalls)) {
      toolCalls.forEach((call: unknown, position) => {
        if (isWireObject(call)) this.readToolCall(call, position, out);
      });
    }
  }

  /** One part of a `delta.content` array (Mistral): `text`, or `thinking` holding text parts or a string. */
  private contentPart(part: WireObject, out: StreamEvent[]): void {
    switch (stringAt(part, "type")) {
      case "text":
        this.answerText(stringAt(part, "text") ?? "", out);
        break;
      case "thinking": {
        const thinking = part.thinking;
        if (typeof thinking === "string") {
          this.thinkingText(thinking, out);
        } else if (Array.isArray(thinking)) {
          for (const inner of thinking)
            if (isWireObject(inner)) this.thinkingText(stringAt(inner, "text") ?? "", out);
        }
        break;
      }
      default:
        break;
    }
  }

  private thinkingText(text: string, out: StreamEvent[]): void {
    if (text.length === 0) return;
    this.closeText(out);
    if (this.thinking === undefined) {
      this.thinking = { index: this.blocks.start({ type: "thinking" }, out), text: "" };
    }
    this.thinking.text += text;
    out.push({ type: "block_delta", index: this.thinking.index, delta: { type: "thinking", text } });
  }

  private answerText(text: string, out: StreamEvent[]): void {
    if (text.length === 0) return;
    this.closeThinking(out);
    this.textIndex ??= this.blocks.start({ type: "text" }, out);
    out.push({ type: "block_delta", index: this.textIndex, delta: { type: "text", text } });
  }

  /** The key of the call a tool_calls entry belongs to: its index's, unless it brings another call's id. */
  private toolKey(call: WireObject, position: number): number {
    const wireIndex = numberAt(call, "index") ?? position;
    const id = stringAt(call, "id");
    const key = this.slots.get(wireIndex);
    const current = key === undefined ? undefined : this.tools.get(key);
    if (
      current !== undefined &&
      id !== undefined &&
      id.length > 0 &&
      current.id.length > 0 &&
      id !== current.id
    ) {
      const fresh = this.tools.size === 0 ? 0 : Math.max(...this.tools.keys()) + 1;
      this.slots.set(wireIndex, fresh);
      return fresh;
    }
    if (key === undefined) {
      const fresh = this.tools.size === 0 ? 0 : Math.max(...this.tools.keys()) + 1;
      this.slots.set(wireIndex, fresh);
      return fresh;
    }
    return key;
  }

  private readToolCall(call: WireObject, position: number, out: StreamEvent[]): void {
    const key = this.toolKey(call, position);
    const fn = objectAt(call, "function");
    let state = this.tools.get(key);
    if (state === undefined) {
      // An entry with neither id nor function carries nothing to act on.
      if (fn === undefined && stringAt(call, "id") === undefined) return;
      this.closeThinking(out);
      this.sawToolCalls = true;
      state = {
        id: stringAt(call, "id") ?? "",
        name: "",
        index: undefined,
        pendingArguments: "",
        signature: undefined,
      };
      this.tools.set(key, state);
    }
    if (state.index === undefined) {
      const id = stringAt(call, "id");
      if (id !== undefined && id.length > 0) state.id = id;
      const name = stringAt(fn, "name");
      if (name !== undefined && name.length > 0) state.name = name;
      const signature = stringAt(objectAt(objectAt(call, "extra_content"), "google"), "thought_signature");
      if (signature !== undefined && signature.length > 0) state.signature = signature;
    }
    const args = stringAt(fn, "arguments") ?? "";
    if (state.index === undefined) {
      state.pendingArguments += args;
      if (state.name.length > 0) this.startToolCall(state, out);
    } else if (args.length > 0) {
      out.push({ type: "block_delta", index: state.index, delta: { type: "input_json", json: args } });
    }
  }

  private startToolCall(state: ToolCallState, out: StreamEvent[]): void {
    // A few local servers send no id; the history still needs one to pair the result with.
    if (state.id.length === 0) state.id = `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
    state.index = this.blocks.start(
      state.signature === undefined
        ? { type: "tool_use", id: state.id, name: state.name }
        : { type: "tool_use", id: state.id, name: state.name, signature: state.signature },
      out,
    );
    if (state.pendingArguments.length > 0) {
      out.push({
        type: "block_delta",
        index: state.index,
        delta: { type: "input_json", json: state.pendingArguments },
      });
      state.pendingArguments = "";
    }
  }

  private closeText(out: StreamEvent[], stopReason?: StopReason): void {
    if (this.textIndex === undefined) return;
    this.blocks.release(this.textIndex);
    out.push(
      stopReason === undefined
        ? { type: "block_stop", index: this.textIndex, block_type: "text" }
        : { type: "block_stop", index: this.textIndex, block_type: "text", stop_reason: stopReason },
    );
    this.textIndex = undefined;
  }

  private closeThinking(out: StreamEvent[]): void {
    if (this.thinking === undefined) return;
    this.blocks.release(this.thinking.index);
    out.push({
      type: "block_stop",
      index: this.thinking.index,
      block_type: "thinking",
      reasoning: { text: this.thinking.text },
    });
    this.thinking = undefined;
  }

  private closeAll(out: StreamEvent[]): void {
    for (const segment of this.content.flush()) {
      if (segment.kind === "thinking") this.thinkingText(segment.text, out);
      else this.answerText(segment.text, out);
    }
    this.closeThinking(out);
    this.closeText(out, this.stopReason);
    for (const state of this.tools.values()) {
      if (state.index === undefined) {
        if (state.name.length === 0) {
          throw new LlmClientError(
            "protocol",
            this.provider,
            `${this.provider}: a tool call never got a function name`,
            {
              code: "tool_call_without_name",
            },
          );
        }
        this.startToolCall(state, out);
      }
      const index = state.index as number;
      this.blocks.release(index);
      out.push({ type: "block_stop", index, block_type: "tool_use", stop_reason: "tool_use" });
    }
    this.tools = new Map();
    this.slots = new Map();
    this.closeDetails(out);
  }

  /** The response's reasoning details as one reasoning block (they go back as they came). */
  private closeDetails(out: StreamEvent[]): void {
    if (this.details.length === 0) return;
    const index = this.blocks.start({ type: "thinking" }, out);
    this.blocks.release(index);
    const details = this.details as JsonObject[];
    this.details = [];
    out.push({ type: "block_stop", index, block_type: "thinking", reasoning: { text: "", details } });
  }

  private complete(out: StreamEvent[]): void {
    this.startResponse(out);
    this.closeAll(out);
    this.completeResponse(out, this.usage, this.stopReason ?? (this.sawToolCalls ? "tool_use" : "end_turn"));
  }

  private readUsage(usage: WireObject): void {
    const promptDetails = objectAt(usage, "prompt_tokens_details");
    const completionDetails = objectAt(usage, "completion_tokens_details");
    const input = numberAt(usage, "prompt_tokens");
    const completion = numberAt(usage, "completion_tokens");
    const total = numberAt(usage, "total_tokens");
    const reasoning = numberAt(completionDetails, "reasoning_tokens");
    // OpenAI counts reasoning inside completion_tokens; xAI beside it (the total tells which).
    const reasoningApart =
      reasoning !== undefined &&
      reasoning > 0 &&
      input !== undefined &&
      completion !== undefined &&
      total === input + completion + reasoning;
    this.usage = usageFrom({
      input,
      output: reasoningApart ? completion + reasoning : completion,
      total,
      cacheRead: numberAt(promptDetails, "cached_tokens") ?? numberAt(usage, "prompt_cache_hit_tokens"),
      reasoning,
    });
  }
}

/** The string fields a streamed reasoning detail is cut into. */
const detailTextFields = ["text", "summary", "data"] as const;

/**
 * Adds one streamed `reasoning_details` entry: a piece of the entry of the same `index` and
 * type appends its text, summary or data; anything else is an entry of its own.
 */
function mergeDetail(details: WireObject[], detail: WireObject): void {
  const index = numberAt(detail, "index");
  const type = stringAt(detail, "type");
  const at = index === undefined ? -1 : details.findIndex((d) => d.index === index && d.type === type);
  if (at < 0) {
    details.push({ ...detail });
    return;
  }
  const merged: Record<string, unknown> = { ...details[at] };
  for (const [key, value] of Object.entries(detail)) {
    const previous = merged[key];
    const textual = (detailTextFields as readonly string[]).includes(key);
    merged[key] =
      textual && typeof previous === "string" && typeof value === "string" ? previous + value : value;
  }
  details[at] = merged;
}
