/**
 * Gemini `streamGenerateContent?alt=sse` stream → normalized events. Every data line is a
 * whole GenerateContentResponse; only candidate 0 is read. Text parts feed one text block and
 * `thought: true` parts one thinking block (both opened at their first part, closed at
 * `finishReason`). A `functionCall` part arrives whole and becomes a complete tool block; its
 * id is Gemini's when given (then also the `item_id`, to be sent back), otherwise a fresh
 * unique one, so two calls to the same function never collide. A part's `thoughtSignature`
 * stays with the part that carried it: on a function call's block start, on the stop of the
 * thinking block a signed thought part ends, on the stop of the text block a signed text part
 * ends (streaming sends it on the last chunk, often with empty text); each signature ends its
 * block, so none is lost. A signature with no thought or text to hold it becomes a thinking
 * block with empty text. The stream has no terminal event: it ends after the chunk with
 * `finishReason`; `usageMetadata` (repeated on every chunk) is reported once. Finish reasons
 * other than a stop or the output limit are a content filter (safety, recitation, image
 * blocks, ...) or an error (malformed calls or responses, a missing thought signature).
 *
 * Boundary rule: a pure state machine over SSE messages.
 */
import { randomUUID } from "node:crypto";
import type { BlockStart, ReasoningData, StopReason, StreamEvent } from "../../model/events.js";
import type { Usage } from "../../model/usage.js";
import { ProtocolParser } from "../protocol-parser.js";
import type { SseMessage } from "../sse-decoder.js";
import { providerStreamError, providerStreamErrorOf } from "../stream-errors.js";
import { usageFrom } from "../usage-report.js";
import {
  isWireObject,
  numberAt,
  objectAt,
  objectsAt,
  parseWireObject,
  stringAt,
  type WireObject,
} from "../wire-json.js";

type ToolUseStart = Extract<BlockStart, { type: "tool_use" }>;

const filterReasons = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "LANGUAGE",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
  "IMAGE_OTHER",
  "NO_IMAGE",
]);

/** Finish reasons that mean the response is unusable, with what to say when Gemini says nothing. */
const failureReasons: ReadonlyMap<string, string> = new Map([
  ["MALFORMED_FUNCTION_CALL", "the model produced a malformed function call"],
  ["UNEXPECTED_TOOL_CALL", "the model called a tool that was not offered"],
  ["TOO_MANY_TOOL_CALLS", "the model made too many tool calls"],
  ["MALFORMED_RESPONSE", "the model produced a malformed response"],
  ["MISSING_THOUGHT_SIGNATURE", "a function call in the request is missing its thought signature"],
]);

/** Parser state for one Gemini stream. */
export class GeminiParser extends ProtocolParser {
  private textIndex: number | undefined;
  private thinking: { index: number; text: string } | undefined;
  private sawToolCalls = false;
  private stopReason: StopReason | undefined;
  private usage: Usage = {};

  protected read(message: SseMessage, out: StreamEvent[]): void {
    const chunk = parseWireObject(this.provider, message.data);
    const error = objectAt(chunk, "error");
    if (error !== undefined) {
      throw providerStreamErrorOf(this.provider, error, ["status", "code"], { message: "unknown error" });
    }
    this.startResponse(out);
    const usage = objectAt(chunk, "usageMetadata");
    if (usage !== undefined) this.readUsage(usage);
    const candidate = objectsAt(chunk, "candidates").find((c) => (numberAt(c, "index") ?? 0) === 0);
    if (candidate === undefined) {
      const blocked = stringAt(objectAt(chunk, "promptFeedback"), "blockReason");
      if (blocked !== undefined) this.finish("content_filter", out);
      return;
    }
    for (const part of objectsAt(objectAt(candidate, "content"), "parts")) this.readPart(part, out);
    const finishReason = stringAt(candidate, "finishReason");
    if (finishReason !== undefined) {
      const failure = failureReasons.get(finishReason);
      if (failure !== undefined) {
        throw providerStreamError(
          this.provider,
          stringAt(candidate, "finishMessage") ?? failure,
          finishReason,
        );
      }
      this.finish(this.stopReasonOf(finishReason), out);
    }
  }

  end(): StreamEvent[] {
    // The stream has no terminal event: after a finish reason, its end completes the response.
    if (this.isComplete || this.stopReason === undefined) return this.requireComplete("a finishReason");
    const out: StreamEvent[] = [];
    this.completeResponse(out, this.usage, this.stopReason);
    return out;
  }

  override abortOpenBlocks(reason: string): StreamEvent[] {
    this.textIndex = undefined;
    this.thinking = undefined;
    return super.abortOpenBlocks(reason);
  }

  private readPart(part: WireObject, out: StreamEvent[]): void {
    const signature = stringAt(part, "thoughtSignature");
    const call = objectAt(part, "functionCall");
    if (call !== undefined) {
      this.sawToolCalls = true;
      const wireId = stringAt(call, "id");
      const id =
        wireId !== undefined && wireId.length > 0 ? wireId : `call_${randomUUID().replaceAll("-", "")}`;
      const block: ToolUseStart = { type: "tool_use", id, name: stringAt(call, "name") ?? "" };
      if (wireId !== undefined && wireId.length > 0) block.item_id = wireId;
      if (signature !== undefined) block.signature = signature;
      const index = this.blocks.start(block, out);
      const args = call.args;
      out.push({
        type: "block_delta",
        index,
        delta: { type: "input_json", json: isWireObject(args) ? JSON.stringify(args) : "{}" },
      });
      this.blocks.release(index);
      out.push({ type: "block_stop", index, block_type: "tool_use", stop_reason: "tool_use" });
      return;
    }
    const text = stringAt(part, "text") ?? "";
    if (part.thought === true) {
      if (text.length > 0) this.thinkingText(text, out);
      if (signature !== undefined) this.closeThinking(out, signature);
      return;
    }
    if (text.length > 0) {
      this.closeThinking(out);
      this.textIndex ??= this.blocks.start({ type: "text" }, out);
      out.push({ type: "block_delta", index: this.textIndex, delta: { type: "text", text } });
    }
    if (signature === undefined) return;
    if (this.textIndex !== undefined) this.closeText(out, undefined, signature);
    else this.closeThinking(out, signature);
  }

  private thinkingText(text: string, out: StreamEvent[]): void {
    if (this.thinking === undefined) {
      this.thinking = { index: this.blocks.start({ type: "thinking" }, out), text: "" };
    }
    this.thinking.text += text;
    out.push({ type: "block_delta", index: this.thinking.index, delta: { type: "thinking", text } });
  }

  /** Closes the thinking block; a signature with no open block gets an empty one of its own. */
  private closeThinking(out: StreamEvent[], signature?: string): void {
    if (this.thinking === undefined && signature !== undefined) {
      this.thinking = { index: this.blocks.start({ type: "thinking" }, out), text: "" };
    }
    if (this.thinking === undefined) return;
    const reasoning: ReasoningData = { text: this.thinking.text };
    if (signature !== undefined) reasoning.signature = signature;
    this.blocks.release(this.thinking.index);
    out.push({ type: "block_stop", index: this.thinking.index, block_type: "thinking", reasoning });
    this.thinking = undefined;
  }

  private closeText(out: StreamEvent[], stopReason?: StopReason, signature?: string): void {
    if (this.textIndex === undefined) return;
    this.blocks.release(this.textIndex);
    const stop: StreamEvent = { type: "block_stop", index: this.textIndex, block_type: "text" };
    if (stopReason !== undefined) stop.stop_reason = stopReason;
    if (signature !== undefined) stop.signature = signature;
    out.push(stop);
    this.textIndex = undefined;
  }

  private stopReasonOf(finishReason: string): StopReason {
    if (finishReason === "MAX_TOKENS") return "max_tokens";
    if (filterReasons.has(finishReason)) return "content_filter";
    return this.sawToolCalls ? "tool_use" : "end_turn";
  }

  /** The finish reason arrived: close thinking and text. */
  private finish(stopReason: StopReason, out: StreamEvent[]): void {
    this.stopReason = stopReason;
    this.closeThinking(out);
    this.closeText(out, stopReason);
  }

  private readUsage(usage: WireObject): void {
    const candidates = numberAt(usage, "candidatesTokenCount");
    const thoughts = numberAt(usage, "thoughtsTokenCount");
    this.usage = usageFrom({
      input: numberAt(usage, "promptTokenCount"),
      output:
        candidates === undefined && thoughts === undefined ? undefined : (candidates ?? 0) + (thoughts ?? 0),
      total: numberAt(usage, "totalTokenCount"),
      cacheRead: numberAt(usage, "cachedContentTokenCount"),
      reasoning: thoughts,
    });
  }
}
