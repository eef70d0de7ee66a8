/**
 * OpenAI Responses stream → normalized events. Output items are addressed by `output_index`
 * (content parts additionally by `content_index`) and mapped to response-unique block indices:
 * - `function_call` items are tool blocks from `output_item.added` to `output_item.done`
 *   (`call_id` is the call id, the `fc_` item id rides along as `item_id`);
 * - each text content part is a text block (opened at `content_part.added`, or at its first
 *   delta when that event is missing) carrying its message's `msg_` id and `phase`, so the
 *   commentary and the final answer of one response stay separate messages;
 * - each `reasoning` item is ONE thinking block fed by summary deltas (parts separated by a
 *   blank line) and raw reasoning deltas; its stop carries `{id, text, summary,
 *   encrypted_content}` taken from `output_item.done`, which is authoritative.
 * `response.completed` and `response.incomplete` (max tokens — `max_output_tokens`, or
 * `max_tokens`/`length` from compatible servers — and content filter) end the response with
 * usage and status; `response.failed` and `error` are typed errors (transient for
 * `server_error`). Other event types
 * (annotations, built-in tool progress, ...) are ignored.
 *
 * Boundary rule: a pure state machine over SSE messages.
 */
import type { BlockStart, ReasoningData, StopReason, StreamEvent } from "../../model/events.js";
import type { Usage } from "../../model/usage.js";
import { ProtocolParser } from "../protocol-parser.js";
import type { SseMessage } from "../sse-decoder.js";
import { providerStreamError, providerStreamErrorOf } from "../stream-errors.js";
import { usageFrom } from "../usage-report.js";
import { numberAt, objectAt, objectsAt, parseWireObject, stringAt, type WireObject } from "../wire-json.js";

interface ToolState {
  index: number;
  sawArguments: boolean;
}

interface ReasoningState {
  index: number | undefined;
  id: string | undefined;
  summary: string[];
  text: string;
  emitted: number;
  encrypted: string | undefined;
}

/** `incomplete_details.reason` values that mean the output limit was reached. */
const maxTokenReasons = new Set(["max_output_tokens", "max_tokens", "length"]);

/** Parser state for one Responses stream. */
export class ResponsesParser extends ProtocolParser {
  private readonly texts = new Map<string, number>();
  /** Output index → the message item's id and phase, for its text blocks. */
  private readonly messages = new Map<number, Extract<BlockStart, { type: "text" }>>();
  private readonly tools = new Map<number, ToolState>();
  private readonly reasonings = new Map<number, ReasoningState>();
  private sawToolCalls = false;
  private usage: Usage = {};

  protected read(message: SseMessage, out: StreamEvent[]): void {
    const event = parseWireObject(this.provider, message.data);
    const type = stringAt(event, "type") ?? message.event ?? "";
    if (type === "error") throw this.errorEvent(event);
    this.startResponse(out);
    const outputIndex = numberAt(event, "output_index") ?? 0;
    switch (type) {
      case "response.output_item.added":
        this.itemAdded(outputIndex, objectAt(event, "item"), out);
        break;
      case "response.output_item.done":
        this.itemDone(outputIndex, objectAt(event, "item"), out);
        break;
      case "response.content_part.added":
        this.contentPartAdded(event, outputIndex, out);
        break;
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const delta = stringAt(event, "delta") ?? "";
        if (delta.length === 0) break;
        const index = this.textBlock(outputIndex, numberAt(event, "content_index") ?? 0, out);
        out.push({ type: "block_delta", index, delta: { type: "text", text: delta } });
        break;
      }
      case "response.content_part.done": {
        const key = `${outputIndex}:${numberAt(event, "content_index") ?? 0}`;
        const index = this.texts.get(key);
        if (index !== undefined) {
          this.texts.delete(key);
          this.stopText(index, out);
        }
        break;
      }
      case "response.function_call_arguments.delta":
        this.toolArguments(outputIndex, stringAt(event, "delta") ?? "", false, out);
        break;
      case "response.function_call_arguments.done":
        this.toolArguments(outputIndex, stringAt(event, "arguments") ?? "", true, out);
        break;
      case "response.reasoning_summary_part.added": {
        const state = this.thinkingBlock(outputIndex, out);
        const summaryIndex = numberAt(event, "summary_index") ?? state.summary.length;
        state.summary[summaryIndex] ??= "";
        break;
      }
      case "response.reasoning_summary_text.delta":
        this.summaryDelta(event, outputIndex, out);
        break;
      case "response.reasoning_text.delta": {
        const delta = stringAt(event, "delta") ?? "";
        if (delta.length === 0) break;
        const state = this.thinkingBlock(outputIndex, out);
        state.text += delta;
        this.thinkingDelta(state, delta, out);
        break;
      }
      case "response.completed":
        this.complete(objectAt(event, "response"), undefined, out);
        break;
      case "response.incomplete": {
        const response = objectAt(event, "response");
        this.complete(response, incompleteStopReason(response), out);
        break;
      }
      case "response.failed":
        throw providerStreamErrorOf(this.provider, objectAt(objectAt(event, "response"), "error"), ["code"], {
          message: "the response failed",
          code: "response_failed",
        });
      default:
        break;
    }
  }

  end(): StreamEvent[] {
    return this.requireComplete("response.completed");
  }

  /** A content part starts: a text (or refusal) block with its initial text, or reasoning text. */
  private contentPartAdded(event: WireObject, outputIndex: number, out: StreamEvent[]): void {
    const part = objectAt(event, "part");
    const partType = stringAt(part, "type");
    if (partType === "output_text" || partType === "refusal") {
      const index = this.textBlock(outputIndex, numberAt(event, "content_index") ?? 0, out);
      const initial = stringAt(part, "text") ?? stringAt(part, "refusal") ?? "";
      if (initial.length > 0)
        out.push({ type: "block_delta", index, delta: { type: "text", text: initial } });
    } else if (partType === "reasoning_text") {
      this.thinkingBlock(outputIndex, out);
    }
  }

  /**
   * A function call's arguments: each delta as it comes, or (`whole`, the done event) all of
   * them at once for a call whose deltas never came.
   */
  private toolArguments(outputIndex: number, json: string, whole: boolean, out: StreamEvent[]): void {
    const tool = this.tools.get(outputIndex);
    if (tool === undefined || json.length === 0 || (whole && tool.sawArguments)) return;
    tool.sawArguments = true;
    out.push({ type: "block_delta", index: tool.index, delta: { type: "input_json", json } });
  }

  /** More text of a reasoning summary part; a new part after others starts a new paragraph. */
  private summaryDelta(event: WireObject, outputIndex: number, out: StreamEvent[]): void {
    const delta = stringAt(event, "delta") ?? "";
    if (delta.length === 0) return;
    const state = this.thinkingBlock(outputIndex, out);
    const summaryIndex = numberAt(event, "summary_index") ?? 0;
    const isNewPart = (state.summary[summaryIndex] ?? "").length === 0;
    state.summary[summaryIndex] = (state.summary[summaryIndex] ?? "") + delta;
    this.thinkingDelta(state, isNewPart && state.emitted > 0 ? `\n\n${delta}` : delta, out);
  }

  private errorEvent(event: WireObject): Error {
    const nested = objectAt(event, "error");
    const message = stringAt(event, "message") ?? stringAt(nested, "message") ?? "unknown error";
    const code = stringAt(event, "code") ?? stringAt(nested, "code") ?? stringAt(nested, "type");
    return providerStreamError(this.provider, message, code);
  }

  private itemAdded(outputIndex: number, item: WireObject | undefined, out: StreamEvent[]): void {
    switch (stringAt(item, "type")) {
      case "message": {
        const start: Extract<BlockStart, { type: "text" }> = { type: "text" };
        const id = stringAt(item, "id");
        const phase = stringAt(item, "phase");
        if (id !== undefined) start.item_id = id;
        if (phase === "commentary" || phase === "final_answer") start.phase = phase;
        this.messages.set(outputIndex, start);
        break;
      }
      case "function_call":
        this.startTool(outputIndex, item as WireObject, out);
        break;
      case "reasoning":
        this.reasonings.set(outputIndex, {
          index: undefined,
          id: stringAt(item, "id"),
          summary: [],
          text: "",
          emitted: 0,
          encrypted: stringAt(item, "encrypted_content"),
        });
        break;
      default:
        break;
    }
  }

  private itemDone(outputIndex: number, item: WireObject | undefined, out: StreamEvent[]): void {
    switch (stringAt(item, "type")) {
      case "function_call": {
        const tool = this.tools.get(outputIndex) ?? this.startTool(outputIndex, item as WireObject, out);
        const args = stringAt(item, "arguments") ?? "";
        if (!tool.sawArguments && args.length > 0) {
          out.push({ type: "block_delta", index: tool.index, delta: { type: "input_json", json: args } });
        }
        this.tools.delete(outputIndex);
        this.blocks.release(tool.index);
        out.push({ type: "block_stop", index: tool.index, block_type: "tool_use", stop_reason: "tool_use" });
        break;
      }
      case "reasoning": {
        const state = this.thinkingBlock(outputIndex, out);
        state.id = stringAt(item, "id") ?? state.id;
        state.encrypted = stringAt(item, "encrypted_content") ?? state.encrypted;
        const summary = objectsAt(item, "summary")
          .map((part) => stringAt(part, "text"))
          .filter((text): text is string => text !== undefined);
        if (summary.length > 0) state.summary = summary;
        if (state.text.length === 0) {
          state.text = objectsAt(item, "content")
            .map((part) => stringAt(part, "text") ?? "")
            .join("");
        }
        this.stopThinking(outputIndex, state, out);
        break;
      }
      case "message":
        for (const [key, index] of this.texts) {
          if (key.startsWith(`${outputIndex}:`)) {
            this.texts.delete(key);
            this.stopText(index, out);
          }
        }
        break;
      default:
        break;
    }
  }

  private startTool(outputIndex: number, item: WireObject, out: StreamEvent[]): ToolState {
    this.sawToolCalls = true;
    const itemId = stringAt(item, "id");
    const callId = stringAt(item, "call_id") ?? itemId ?? `call_${outputIndex}`;
    const name = stringAt(item, "name") ?? "";
    const index = this.blocks.start(
      itemId === undefined
        ? { type: "tool_use", id: callId, name }
        : { type: "tool_use", id: callId, name, item_id: itemId },
      out,
    );
    const tool: ToolState = { index, sawArguments: false };
    const initial = stringAt(item, "arguments") ?? "";
    if (initial.length > 0) {
      tool.sawArguments = true;
      out.push({ type: "block_delta", index, delta: { type: "input_json", json: initial } });
    }
    this.tools.set(outputIndex, tool);
    return tool;
  }

  private textBlock(outputIndex: number, contentIndex: number, out: StreamEvent[]): number {
    const key = `${outputIndex}:${contentIndex}`;
    let index = this.texts.get(key);
    if (index === undefined) {
      index = this.blocks.start(this.messages.get(outputIndex) ?? { type: "text" }, out);
      this.texts.set(key, index);
    }
    return index;
  }

  private stopText(index: number, out: StreamEvent[]): void {
    this.blocks.release(index);
    out.push({ type: "block_stop", index, block_type: "text" });
  }

  private thinkingBlock(outputIndex: number, out: StreamEvent[]): ReasoningState {
    let state = this.reasonings.get(outputIndex);
    if (state === undefined) {
      state = { index: undefined, id: undefined, summary: [], text: "", emitted: 0, encrypted: undefined };
      this.reasonings.set(outputIndex, state);
    }
    state.index ??= this.blocks.start({ type: "thinking" }, out);
    return state;
  }

  private thinkingDelta(state: ReasoningState, text: string, out: StreamEvent[]): void {
    state.emitted += text.length;
    out.push({ type: "block_delta", index: state.index as number, delta: { type: "thinking", text } });
  }

  private stopThinking(outputIndex: number, state: ReasoningState, out: StreamEvent[]): void {
    const index = state.index as number;
    const summary = state.summary.filter((part) => part.length > 0);
    const reasoning: ReasoningData = { text: state.text.length > 0 ? state.text : summary.join("\n\n") };
    if (state.id !== undefined) reasoning.id = state.id;
    if (summary.length > 0) reasoning.summary = summary;
    if (state.encrypted !== undefined) reasoning.encrypted_content = state.encrypted;
    this.reasonings.delete(outputIndex);
    this.blocks.release(index);
    out.push({ type: "block_stop", index, block_type: "thinking", reasoning });
  }

  private complete(
    response: WireObject | undefined,
    stopReason: StopReason | undefined,
    out: StreamEvent[],
  ): void {
    for (const [outputIndex, state] of this.reasonings) {
      if (state.index !== undefined) this.stopThinking(outputIndex, state, out);
    }
    for (const index of this.texts.values()) this.stopText(index, out);
    this.texts.clear();
    for (const tool of this.tools.values()) {
      this.blocks.release(tool.index);
      out.push({ type: "block_stop", index: tool.index, block_type: "tool_use", stop_reason: "tool_use" });
    }
    this.tools.clear();
    const usage = objectAt(response, "usage");
    if (usage !== undefined) this.readUsage(usage);
    this.completeResponse(out, this.usage, stopReason ?? (this.sawToolCalls ? "tool_use" : "end_turn"));
  }

  private readUsage(usage: WireObject): void {
    this.usage = usageFrom({
      input: numberAt(usage, "input_tokens"),
      output: numberAt(usage, "output_tokens"),
      total: numberAt(usage, "total_tokens"),
      cacheRead: numberAt(objectAt(usage, "input_tokens_details"), "cached_tokens"),
      reasoning: numberAt(objectAt(usage, "output_tokens_details"), "reasoning_tokens"),
    });
  }
}

/** Why an incomplete response stopped: the output limit, a content filter, or (else) its end. */
function incompleteStopReason(response: WireObject | undefined): StopReason {
  const reason = stringAt(objectAt(response, "incomplete_details"), "reason") ?? "";
  if (maxTokenReasons.has(reason)) return "max_tokens";
  return reason === "content_filter" ? "content_filter" : "end_turn";
}
