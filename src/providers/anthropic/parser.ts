/**
 * Anthropic Messages stream → normalized events. Content blocks map one to one (text,
 * thinking, redacted_thinking → thinking, tool_use); `signature_delta`s accumulate silently and
 * the thinking stop carries `{text, signature}` (redacted blocks: `{redacted, encrypted_content}`).
 * A tool block that got no `input_json_delta` (a call without arguments) gets `{}`. Usage from
 * `message_start` and `message_delta` is merged, input normalized to include cache reads and
 * writes; `message_stop` ends the response. `ping` passes through; `error` is a typed error
 * (transient for `overloaded_error` and `api_error`). A second `message_start` before
 * `message_stop` means two generations were spliced into one stream (a proxy that retried
 * upstream): that is a transient protocol error rather than a merge of both; the same
 * `message_start` repeated (same message id) is a proxy's echo and is ignored. A `refusal` stop
 * carries `stop_details` (category, explanation) on the response's status.
 * Block types we do not handle (server tools, ...) are skipped with their deltas.
 *
 * Boundary rule: a pure state machine over SSE messages.
 */
import type {
  BlockType,
  ReasoningData,
  RefusalDetails,
  StopReason,
  StreamEvent,
} from "../../model/events.js";
import { LlmClientError } from "../../model/llm-client.js";
import { unreachable } from "../../model/unreachable.js";
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

interface OpenBlock {
  index: number;
  type: BlockType;
  thinking: string;
  signature: string;
  redactedData: string | undefined;
  sawInput: boolean;
}

function stopReasonOf(reason: string | undefined): StopReason | undefined {
  switch (reason) {
    case undefined:
      return undefined;
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_use":
      return "tool_use";
    case "refusal":
      return "refusal";
    default:
      return "end_turn";
  }
}

/** Parser state for one Messages stream. */
export class AnthropicParser extends ProtocolParser {
  /** Wire block index → our block; null for skipped block types. */
  private readonly open = new Map<number, OpenBlock | null>();
  /** The id of the message this stream carries, once `message_start` arrived (null: it had none). */
  private messageId: string | null | undefined = undefined;
  private refusal: RefusalDetails | undefined;
  private stopReason: StopReason | undefined;
  private inputTokens: number | undefined;
  private outputTokens: number | undefined;
  private cacheRead: number | undefined;
  private cacheWrite: number | undefined;

  protected read(message: SseMessage, out: StreamEvent[]): void {
    const event = parseWireObject(this.provider, message.data);
    const type = stringAt(event, "type") ?? message.event ?? "";
    switch (type) {
      case "message_start": {
        const id = stringAt(objectAt(event, "message"), "id") ?? null;
        if (this.messageId !== undefined && id !== null && id === this.messageId) break;
        if (this.messageId !== undefined) {
          throw new LlmClientError(
            "protocol",
            this.provider,
            `${this.provider}: a second message_start arrived before message_stop; the stream splices two responses`,
            { code: "spliced_stream", transient: true },
          );
        }
        this.messageId = id;
        this.startResponse(out);
        const usage = objectAt(objectAt(event, "message"), "usage");
        if (usage !== undefined) this.readUsage(usage);
        break;
      }
      case "content_block_start":
        this.startResponse(out);
        this.startBlock(numberAt(event, "index") ?? 0, objectAt(event, "content_block"), out);
        break;
      case "content_block_delta":
        this.delta(numberAt(event, "index") ?? 0, objectAt(event, "delta"), out);
        break;
      case "content_block_stop":
        this.stopBlock(numberAt(event, "index") ?? 0, out);
        break;
      case "message_delta": {
        const delta = objectAt(event, "delta");
        const reason = stopReasonOf(stringAt(delta, "stop_reason"));
        if (reason !== undefined) this.stopReason = reason;
        const details = objectAt(delta, "stop_details");
        if (reason === "refusal") this.refusal = refusalDetails(details);
        const usage = objectAt(event, "usage");
        if (usage !== undefined) this.readUsage(usage);
        break;
      }
      case "message_stop":
        this.complete(out);
        break;
      case "ping":
        out.push({ type: "ping" });
        break;
      case "error":
        throw providerStreamErrorOf(this.provider, objectAt(event, "error"), ["type"], {
          message: "unknown error",
          code: "error",
        });
      default:
        break;
    }
  }

  end(): StreamEvent[] {
    return this.requireComplete("message_stop");
  }

  override abortOpenBlocks(reason: string): StreamEvent[] {
    this.open.clear();
    return super.abortOpenBlocks(reason);
  }

  private startBlock(wireIndex: number, block: WireObject | undefined, out: StreamEvent[]): void {
    if (this.open.has(wireIndex)) this.stopBlock(wireIndex, out);
    const fresh = (index: number, type: BlockType): OpenBlock => ({
      index,
      type,
      thinking: "",
      signature: "",
      redactedData: undefined,
      sawInput: false,
    });
    switch (stringAt(block, "type")) {
      case "text": {
        const state = fresh(this.blocks.start({ type: "text" }, out), "text");
        this.open.set(wireIndex, state);
        const initial = stringAt(block, "text") ?? "";
        if (initial.length > 0)
          out.push({ type: "block_delta", index: state.index, delta: { type: "text", text: initial } });
        break;
      }
      case "thinking": {
        const state = fresh(this.blocks.start({ type: "thinking" }, out), "thinking");
        state.signature = stringAt(block, "signature") ?? "";
        this.open.set(wireIndex, state);
        const initial = stringAt(block, "thinking") ?? "";
        if (initial.length > 0) this.thinkingDelta(state, initial, out);
        break;
      }
      case "redacted_thinking": {
        const state = fresh(this.blocks.start({ type: "thinking" }, out), "thinking");
        state.redactedData = stringAt(block, "data") ?? "";
        this.open.set(wireIndex, state);
        break;
      }
      case "tool_use": {
        const id = stringAt(block, "id") ?? `toolu_${wireIndex}`;
        const name = stringAt(block, "name") ?? "";
        const state = fresh(this.blocks.start({ type: "tool_use", id, name }, out), "tool_use");
        this.open.set(wireIndex, state);
        // Streaming starts with `input: {}` and sends the real input as deltas; a non-empty
        // object here (a non-streaming proxy) is the whole input.
        const input = block?.input;
        if (isWireObject(input) && Object.keys(input).length > 0) {
          state.sawInput = true;
          out.push({
            type: "block_delta",
            index: state.index,
            delta: { type: "input_json", json: JSON.stringify(input) },
          });
        }
        break;
      }
      default:
        this.open.set(wireIndex, null);
        break;
    }
  }

  private delta(wireIndex: number, delta: WireObject | undefined, out: StreamEvent[]): void {
    const state = this.open.get(wireIndex);
    if (state === undefined || state === null) return;
    switch (stringAt(delta, "type")) {
      case "text_delta": {
        const text = stringAt(delta, "text") ?? "";
        if (text.length > 0 && state.type === "text") {
          out.push({ type: "block_delta", index: state.index, delta: { type: "text", text } });
        }
        break;
      }
      case "thinking_delta": {
        const text = stringAt(delta, "thinking") ?? "";
        if (text.length > 0 && state.type === "thinking") this.thinkingDelta(state, text, out);
        break;
      }
      case "signature_delta":
        state.signature += stringAt(delta, "signature") ?? "";
        break;
      case "input_json_delta": {
        const json = stringAt(delta, "partial_json") ?? "";
        if (json.length > 0 && state.type === "tool_use") {
          state.sawInput = true;
          out.push({ type: "block_delta", index: state.index, delta: { type: "input_json", json } });
        }
        break;
      }
      default:
        break;
    }
  }

  private thinkingDelta(state: OpenBlock, text: string, out: StreamEvent[]): void {
    state.thinking += text;
    out.push({ type: "block_delta", index: state.index, delta: { type: "thinking", text } });
  }

  private stopBlock(wireIndex: number, out: StreamEvent[]): void {
    const state = this.open.get(wireIndex);
    this.open.delete(wireIndex);
    if (state === undefined || state === null) return;
    this.blocks.release(state.index);
    switch (state.type) {
      case "text":
        out.push({ type: "block_stop", index: state.index, block_type: "text" });
        break;
      case "thinking": {
        const reasoning: ReasoningData =
          state.redactedData !== undefined
            ? { text: "", redacted: true, encrypted_content: state.redactedData }
            : { text: state.thinking };
        if (state.signature.length > 0) reasoning.signature = state.signature;
        out.push({ type: "block_stop", index: state.index, block_type: "thinking", reasoning });
        break;
      }
      case "tool_use":
        if (!state.sawInput) {
          out.push({ type: "block_delta", index: state.index, delta: { type: "input_json", json: "{}" } });
        }
        out.push({ type: "block_stop", index: state.index, block_type: "tool_use", stop_reason: "tool_use" });
        break;
      default:
        unreachable(state.type, "unknown block type");
    }
  }

  private complete(out: StreamEvent[]): void {
    this.startResponse(out);
    for (const wireIndex of [...this.open.keys()]) this.stopBlock(wireIndex, out);
    const usage = usageFrom({
      input:
        this.inputTokens === undefined
          ? undefined
          : this.inputTokens + (this.cacheRead ?? 0) + (this.cacheWrite ?? 0),
      output: this.outputTokens,
      cacheRead: this.cacheRead,
      cacheWrite: this.cacheWrite,
    });
    this.completeResponse(out, usage, this.stopReason ?? "end_turn");
    const status = out[out.length - 1];
    if (this.refusal !== undefined && status?.type === "status") status.refusal = this.refusal;
  }

  /** message_start and message_delta both report counters; later values win, absent ones keep earlier values. */
  private readUsage(usage: WireObject): void {
    this.inputTokens = numberAt(usage, "input_tokens") ?? this.inputTokens;
    this.outputTokens = numberAt(usage, "output_tokens") ?? this.outputTokens;
    this.cacheRead = numberAt(usage, "cache_read_input_tokens") ?? this.cacheRead;
    this.cacheWrite = numberAt(usage, "cache_creation_input_tokens") ?? this.cacheWrite;
  }
}

/** A refusal's `stop_details` (category and explanation, either may be null or absent). */
function refusalDetails(details: WireObject | undefined): RefusalDetails {
  const result: RefusalDetails = {};
  const category = stringAt(details, "category");
  const explanation = stringAt(details, "explanation");
  if (category !== undefined) result.category = category;
  if (explanation !== undefined) result.explanation = explanation;
  return result;
}
