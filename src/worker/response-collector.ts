/**
 * Turns the stream events of ONE model response into its reasoning, text and tool calls.
 *
 * Boundary rule: pure in-memory state for a single response; a new collector per request, so
 * nothing of a failed response can leak into the next one. Provider quirks are normalised here:
 * - the Worker tracks index → block type itself; a stop's own `block_type` is only a fallback;
 * - a delta with no open block opens one implicitly (OpenAI and Gemini send no text start);
 * - a delta of another type than the open block at its index closes that block and opens a new one;
 * - blocks still open when a finish reason arrives (a `status` event that is "completed" or carries
 *   a stop reason) or when the stream ends are closed and collected, tool calls included;
 * - an input_json delta without a tool start has no id or name and is dropped;
 * - `block_abort` drops the block;
 * - text blocks of different provider message items (id, phase) make different messages, and a
 *   text block that ends with a signature ends its message, so every signature keeps its text;
 * - reasoning is kept when it has anything to send back, an id alone included.
 * With a clock, a thinking block is timed from where the response's previous output ended until
 * the block ends. It starts at the response's first event (any event: the response has started,
 * and the model thinks before it says anything) or, after other output, at the last event of
 * another block or the end of the previous thinking block; the first thinking delta would be too
 * late, since providers that stream a summary of their thinking send it only once thinking is
 * done. It ends at its stop, when any other block starts or streams (some providers never close
 * a thinking block), or when the response ends. A whole reasoning item given as a lone stop is
 * timed the same way. A `retry` notice means the next event starts another attempt's response.
 */
import type {
  BlockDelta,
  BlockStart,
  ReasoningData,
  RefusalDetails,
  StopReason,
  StreamEvent,
} from "../model/events.js";
import type { ItemOrigin, MessagePhase, ReasoningItem, ToolCallItem } from "../model/items.js";
import { unreachable } from "../model/unreachable.js";
import { reasoningItem } from "./reasoning-item.js";

/** Which provider message a text block belongs to, and the signature it ended with. */
interface TextMeta {
  item_id?: string;
  phase?: MessagePhase;
  signature?: string;
  origin?: ItemOrigin;
}

/** One assistant message of a response: its text and what the provider needs back with it. */
export interface CollectedMessage extends TextMeta {
  text: string;
}

/** A thinking block; `startedAt`/`endedAt` are clock readings (null: not timed, or not yet). */
interface ThinkingBlock {
  type: "thinking";
  order: number;
  text: string;
  startedAt: number | null;
  endedAt: number | null;
}

type OpenBlock =
  | { type: "text"; order: number; text: string; meta: TextMeta }
  | ThinkingBlock
  | {
      type: "tool_use";
      order: number;
      id: string;
      name: string;
      json: string;
      item_id?: string;
      signature?: string;
      origin?: ItemOrigin;
    }
  /** Tool input that arrived without a start: no id or name to file it under. */
  | { type: "orphan_input"; order: number };

type ClosedBlock =
  | { type: "text"; order: number; text: string; meta: TextMeta }
  | { type: "reasoning"; order: number; item: ReasoningItem }
  | { type: "tool_call"; order: number; item: ToolCallItem };

/** A text or thinking block as far as it streamed (a cancelled response's). */
export interface StreamedBlock {
  kind: "text" | "thinking";
  text: string;
}

/** What one response produced, each part in the order its block was opened. */
export interface CollectedResponse {
  reasoning: ReasoningItem[];
  /** All text blocks joined with "". */
  text: string;
  /** The text as messages (one unless the provider separates them). */
  messages: CollectedMessage[];
  toolCalls: ToolCallItem[];
  /** Why the response ended, when the provider said. */
  stopReason?: StopReason;
  /** What the provider said about a refusal (`stopReason` "refusal"). */
  refusal?: RefusalDetails;
}

export class ResponseCollector {
  private readonly open = new Map<number, OpenBlock>();
  private readonly closed: ClosedBlock[] = [];
  private nextOrder = 0;
  /** Thinking blocks being timed whose end is not seen yet. */
  private thinking: ThinkingBlock[] = [];
  /**
   * Where a thinking block opened now would start: the response's first event, then the last
   * event of any other block or the end of the last thinking block (null: no event of this
   * attempt's response yet, or no clock).
   */
  private since: number | null = null;
  private stopReason: StopReason | undefined;
  private refusal: RefusalDetails | undefined;

  /** `clock` (ms) times thinking blocks; without one, reasoning items carry no duration. */
  constructor(private readonly clock: (() => number) | null = null) {}

  /** Feeds one stream event; events that carry no content (usage, ping, ...) only mark the response's start. */
  accept(event: StreamEvent): void {
    if (event.type === "retry") {
      // Another attempt follows: its response starts with its own first event.
      this.since = null;
      return;
    }
    if (this.since === null && this.clock !== null) this.since = this.clock();
    switch (event.type) {
      case "block_start":
        this.endThinking(null);
        this.closeIndex(event.index);
        this.open.set(event.index, this.startBlock(event.block));
        this.markOutput(event.index);
        return;
      case "block_delta":
        this.appendDelta(event.index, event.delta);
        return;
      case "block_stop": {
        const block = this.open.get(event.index);
        if (block?.type === "text" && event.signature !== undefined) {
          block.meta.signature = event.signature;
          if (event.origin !== undefined) block.meta.origin = event.origin;
        }
        this.stopBlock(event.index, event.block_type, event.reasoning);
        this.markOutput(null);
        return;
      }
      case "block_abort":
        this.open.delete(event.index);
        return;
      case "status":
        if (event.stop_reason !== undefined) this.stopReason = event.stop_reason;
        if (event.refusal !== undefined) this.refusal = event.refusal;
        if (event.status === "completed" || event.stop_reason !== undefined) this.closeAll();
        return;
      case "usage":
      case "error":
      case "ping":
        return;
      default:
        unreachable(event, "Unknown stream event:");
    }
  }

  /** Closes whatever is still open (the stream ended) and returns the response's parts. */
  finish(): CollectedResponse {
    this.closeAll();
    const blocks = [...this.closed].sort((a, b) => a.order - b.order);
    const reasoning: ReasoningItem[] = [];
    const texts: string[] = [];
    const messages: CollectedMessage[] = [];
    const toolCalls: ToolCallItem[] = [];
    for (const block of blocks) {
      if (block.type === "reasoning") reasoning.push(block.item);
      else if (block.type === "text") {
        texts.push(block.text);
        appendText(messages, block.text, block.meta);
      } else toolCalls.push(block.item);
    }
    const response: CollectedResponse = { reasoning, text: texts.join(""), messages, toolCalls };
    if (this.stopReason !== undefined) response.stopReason = this.stopReason;
    if (this.refusal !== undefined) response.refusal = this.refusal;
    return response;
  }

  /** The text and thinking streamed so far, closed or still open, in order (tool input is left out). */
  streamedSoFar(): StreamedBlock[] {
    const blocks = [...this.closed, ...this.open.values()].sort((a, b) => a.order - b.order);
    return blocks.flatMap((block): StreamedBlock[] => {
      if (block.type === "text" || block.type === "thinking") return [{ kind: block.type, text: block.text }];
      return block.type === "reasoning" ? [{ kind: "thinking", text: block.item.text }] : [];
    });
  }

  private startBlock(start: BlockStart): OpenBlock {
    const order = this.nextOrder++;
    switch (start.type) {
      case "text": {
        const meta: TextMeta = {};
        if (start.item_id !== undefined) meta.item_id = start.item_id;
        if (start.phase !== undefined) meta.phase = start.phase;
        return { type: "text", order, text: "", meta };
      }
      case "thinking":
        return this.thinkingBlock(order);
      case "tool_use": {
        const block: OpenBlock = { type: "tool_use", order, id: start.id, name: start.name, json: "" };
        if (start.item_id !== undefined) block.item_id = start.item_id;
        if (start.signature !== undefined) block.signature = start.signature;
        if (start.origin !== undefined) block.origin = start.origin;
        return block;
      }
      default:
        unreachable(start, "Unknown block start:");
    }
  }

  private appendDelta(index: number, delta: BlockDelta): void {
    let block = this.open.get(index);
    if (block !== undefined && !deltaFits(block, delta)) {
      this.closeIndex(index);
      block = undefined;
    }
    if (block === undefined) {
      // Thinking still timed ends where this block begins (a new thinking block starts there).
      this.endThinking(null);
      block = this.implicitBlock(delta);
      this.open.set(index, block);
    } else {
      this.endThinking(block.type === "thinking" ? block : null);
    }
    this.markOutput(index);
    switch (delta.type) {
      case "text":
      case "thinking":
        if (block.type === "text" || block.type === "thinking") block.text += delta.text;
        return;
      case "input_json":
        if (block.type === "tool_use") block.json += delta.json;
        return;
      default:
        unreachable(delta, "Unknown block delta:");
    }
  }

  private implicitBlock(delta: BlockDelta): OpenBlock {
    const order = this.nextOrder++;
    switch (delta.type) {
      case "text":
        return { type: "text", order, text: "", meta: {} };
      case "thinking":
        return this.thinkingBlock(order);
      case "input_json":
        return { type: "orphan_input", order };
      default:
        unreachable(delta, "Unknown block delta:");
    }
  }

  private stopBlock(index: number, stopType: string | undefined, data: ReasoningData | undefined): void {
    if (this.open.has(index)) {
      this.closeIndex(index, data);
      return;
    }
    // Some providers emit a whole reasoning item as a lone stop (e.g. encrypted-only reasoning).
    if (stopType === "thinking" && data !== undefined) {
      this.endThinking(null);
      const item = reasoningItem("", data, this.loneDuration());
      if (item !== undefined) this.closed.push({ type: "reasoning", order: this.nextOrder++, item });
    }
  }

  private closeIndex(index: number, data?: ReasoningData): void {
    const block = this.open.get(index);
    if (block === undefined) return;
    this.open.delete(index);
    switch (block.type) {
      case "text":
        if (block.text !== "" || block.meta.signature !== undefined) {
          this.closed.push({ type: "text", order: block.order, text: block.text, meta: block.meta });
        }
        return;
      case "thinking": {
        this.endThinkingOf(block);
        const item = reasoningItem(block.text, data, durationOf(block));
        if (item !== undefined) this.closed.push({ type: "reasoning", order: block.order, item });
        return;
      }
      case "tool_use":
        this.closed.push({ type: "tool_call", order: block.order, item: toolCallItem(block) });
        return;
      case "orphan_input":
        return;
      default:
        unreachable(block, "Unknown open block:");
    }
  }

  /** A new thinking block, timed from `since` when there is a clock. */
  private thinkingBlock(order: number): ThinkingBlock {
    const block: ThinkingBlock = { type: "thinking", order, text: "", startedAt: this.since, endedAt: null };
    if (this.since !== null) this.thinking.push(block);
    return block;
  }

  /** Whole milliseconds of a reasoning item that came whole as a lone stop: from `since` to now. */
  private loneDuration(): number | undefined {
    if (this.clock === null || this.since === null) return undefined;
    const now = this.clock();
    const duration = Math.max(0, Math.round(now - this.since));
    this.since = now;
    return duration;
  }

  /** Output of the block at `index` (null: a block stopped) was seen now: a later thinking block starts after it. */
  private markOutput(index: number | null): void {
    if (this.clock === null) return;
    if (index !== null && this.open.get(index)?.type === "thinking") return;
    this.since = this.clock();
  }

  /** Ends the timing of every thinking block in progress but `continuing` (the block a thinking delta extends). */
  private endThinking(continuing: ThinkingBlock | null): void {
    if (this.clock === null || this.thinking.length === 0) return;
    if (this.thinking.length === 1 && this.thinking[0] === continuing) return;
    const now = this.clock();
    for (const block of this.thinking) if (block !== continuing) block.endedAt = now;
    this.thinking = continuing !== null && this.thinking.includes(continuing) ? [continuing] : [];
    this.since = now;
  }

  /** Ends the timing of one thinking block (it closed, or came whole as a lone stop). */
  private endThinkingOf(block: ThinkingBlock): void {
    const at = this.thinking.indexOf(block);
    if (this.clock === null || at < 0) return;
    const now = this.clock();
    block.endedAt = now;
    this.thinking.splice(at, 1);
    this.since = now;
  }

  private closeAll(): void {
    const indices = [...this.open.entries()].sort((a, b) => a[1].order - b[1].order).map(([index]) => index);
    for (const index of indices) this.closeIndex(index);
  }
}

/** Whole milliseconds from a thinking block's start to its end, or undefined when it was not timed. */
function durationOf(block: ThinkingBlock): number | undefined {
  if (block.startedAt === null || block.endedAt === null) return undefined;
  return Math.max(0, Math.round(block.endedAt - block.startedAt));
}

function deltaFits(block: OpenBlock, delta: BlockDelta): boolean {
  switch (delta.type) {
    case "text":
      return block.type === "text";
    case "thinking":
      return block.type === "thinking";
    case "input_json":
      return block.type === "tool_use" || block.type === "orphan_input";
    default:
      unreachable(delta, "Unknown block delta:");
  }
}

/** Adds a text block to the messages: same provider message as the last text, unless that one was signed. */
function appendText(messages: CollectedMessage[], text: string, meta: TextMeta): void {
  const last = messages[messages.length - 1];
  if (
    last !== undefined &&
    last.signature === undefined &&
    last.item_id === meta.item_id &&
    last.phase === meta.phase
  ) {
    last.text += text;
    if (meta.signature !== undefined) last.signature = meta.signature;
    if (meta.origin !== undefined) last.origin = meta.origin;
    return;
  }
  messages.push({ ...meta, text });
}

/** Empty arguments become "{}"; anything else is kept byte for byte, valid JSON or not. */
function toolCallItem(block: Extract<OpenBlock, { type: "tool_use" }>): ToolCallItem {
  const item: ToolCallItem = {
    type: "tool_call",
    call_id: block.id,
    name: block.name,
    arguments: block.json.trim() === "" ? "{}" : block.json,
  };
  if (block.item_id !== undefined) item.id = block.item_id;
  if (block.signature !== undefined) item.signature = block.signature;
  if (block.origin !== undefined) item.origin = block.origin;
  return item;
}
