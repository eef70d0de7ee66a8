/**
 * The frame every protocol parser shares: `started` once and first, usage (when known) and one
 * `completed` at the end, nothing after it, and an incomplete-stream error for a stream that
 * ends before its response completed.
 */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../src/model/events.js";
import { LlmClientError } from "../../src/model/llm-client.js";
import type { Usage } from "../../src/model/usage.js";
import { ProtocolParser } from "../../src/providers/protocol-parser.js";
import type { SseMessage } from "../../src/providers/sse-decoder.js";

/** A protocol of three messages: `text:<t>` (opens a text block), `stop`, `done:<usage json>`. */
class LineParser extends ProtocolParser {
  private textIndex: number | undefined;

  protected read(message: SseMessage, out: StreamEvent[]): void {
    this.startResponse(out);
    const [kind, rest = ""] = message.data.split(/:(.*)/s);
    if (kind === "text") {
      this.textIndex ??= this.blocks.start({ type: "text" }, out);
      out.push({ type: "block_delta", index: this.textIndex, delta: { type: "text", text: rest } });
    } else if (kind === "done") {
      this.completeResponse(out, JSON.parse(rest) as Usage, "end_turn");
    }
  }

  end(): StreamEvent[] {
    return this.requireComplete("done");
  }
}

const push = (parser: LineParser, ...data: string[]) => data.flatMap((line) => parser.push({ data: line }));

describe("ProtocolParser", () => {
  it("says started once, before the first block, and completes with the usage", () => {
    const parser = new LineParser("test");
    expect(push(parser, "text:a", "text:b", 'done:{"input_tokens":3}')).toEqual([
      { type: "status", status: "started" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "a" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "b" } },
      { type: "usage", usage: { input_tokens: 3 } },
      { type: "status", status: "completed", stop_reason: "end_turn" },
    ]);
    expect(parser.end()).toEqual([]);
  });

  it("leaves the usage out when no counter was reported", () => {
    const parser = new LineParser("test");
    expect(push(parser, "done:{}")).toEqual([
      { type: "status", status: "started" },
      { type: "status", status: "completed", stop_reason: "end_turn" },
    ]);
  });

  it("ignores every message after the response completed", () => {
    const parser = new LineParser("test");
    push(parser, "done:{}");
    expect(push(parser, "text:late", "done:{}")).toEqual([]);
  });

  it("calls a stream that ends before its response completed incomplete, naming what was missing", () => {
    const parser = new LineParser("test");
    push(parser, "text:partial");
    const end = () => parser.end();
    expect(end).toThrow(LlmClientError);
    expect(end).toThrow(expect.objectContaining({ kind: "network", code: "incomplete_stream" }));
    expect(end).toThrow("test stream ended before done; the response is incomplete");
  });

  it("aborts the blocks still open", () => {
    const parser = new LineParser("test");
    push(parser, "text:partial");
    expect(parser.abortOpenBlocks("cut")).toEqual([
      { type: "block_abort", index: 0, block_type: "text", reason: "cut" },
    ]);
    expect(parser.abortOpenBlocks("again")).toEqual([]);
  });
});
