/**
 * What every protocol parser shares: the ledger of its open blocks and the frame of one
 * response's events, `status: started` once and before anything else, and at the end the usage
 * (when any counter was reported) and one `status: completed`. Messages after that are ignored.
 * A byte stream that ends before the response completed is an incomplete response, unless the
 * protocol has no terminal event and its parser completes the response then.
 *
 * Boundary rule: state of one response only; each subclass reads its own protocol's messages.
 */
import type { StopReason, StreamEvent } from "../model/events.js";
import type { Usage } from "../model/usage.js";
import { BlockLedger } from "./block-ledger.js";
import type { SseMessage } from "./sse-decoder.js";
import { incompleteStreamError } from "./stream-errors.js";
import type { StreamParser } from "./stream-parser.js";
import { hasUsage } from "./usage-report.js";

/** A parser for one response of one wire protocol. */
export abstract class ProtocolParser implements StreamParser {
  protected readonly blocks = new BlockLedger();
  private started = false;
  private completed = false;

  constructor(protected readonly provider: string) {}

  push(message: SseMessage): StreamEvent[] {
    const out: StreamEvent[] = [];
    this.pushInto(message, out);
    return out;
  }

  pushInto(message: SseMessage, out: StreamEvent[]): void {
    if (!this.completed) this.read(message, out);
  }

  abstract end(): StreamEvent[];

  abortOpenBlocks(reason: string): StreamEvent[] {
    return this.blocks.abortAll(reason);
  }

  /** Appends the events of one message of a response that has not completed yet. */
  protected abstract read(message: SseMessage, out: StreamEvent[]): void;

  /** Whether the response completed. */
  protected get isComplete(): boolean {
    return this.completed;
  }

  /** Emits `status: started` unless it was emitted already. */
  protected startResponse(out: StreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    out.push({ type: "status", status: "started" });
  }

  /** Completes the response: its usage, when any counter is known, then `status: completed`. */
  protected completeResponse(out: StreamEvent[], usage: Usage, stopReason: StopReason): void {
    this.startResponse(out);
    this.completed = true;
    if (hasUsage(usage)) out.push({ type: "usage", usage });
    out.push({ type: "status", status: "completed", stop_reason: stopReason });
  }

  /**
   * For `end`: no more events when the response completed; otherwise throws the
   * incomplete-stream error naming what the protocol should have sent (`expected`).
   */
  protected requireComplete(expected: string): StreamEvent[] {
    if (this.completed) return [];
    throw incompleteStreamError(this.provider, expected);
  }
}
