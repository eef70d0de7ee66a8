/** The SSE decoder: events from bytes whatever the chunking, CRLF, and where the stream ends. */
import { describe, expect, it } from "vitest";
import { SseDecoder, SseOverflowError } from "../../src/providers/sse-decoder.js";

const bytes = (text: string) => new TextEncoder().encode(text);

function decodeAll(chunks: Uint8Array[], decoder = new SseDecoder()) {
  const messages = chunks.flatMap((chunk) => [...decoder.decode(chunk)]);
  return [...messages, ...decoder.end()];
}

describe("SseDecoder", () => {
  it("decodes events with and without an event field", () => {
    expect(decodeAll([bytes('event: ping\ndata: {}\n\ndata: {"a":1}\n\n')])).toEqual([
      { event: "ping", data: "{}" },
      { data: '{"a":1}' },
    ]);
  });

  it("joins multi-line data and accepts CRLF line ends", () => {
    expect(decodeAll([bytes("data: one\r\ndata: two\r\n\r\n")])).toEqual([{ data: "one\ntwo" }]);
  });

  it("keeps a multi-byte character split across chunks intact", () => {
    const whole = bytes("data: 日本語 👋\n\n");
    const chunks = Array.from(whole, (byte) => Uint8Array.of(byte));
    expect(decodeAll(chunks)).toEqual([{ data: "日本語 👋" }]);
  });

  it("delivers a last event whose lines are complete even without the closing blank line", () => {
    expect(decodeAll([bytes("data: [DONE]\n")])).toEqual([{ data: "[DONE]" }]);
  });

  it("drops a last line cut off mid-way (the stream was truncated)", () => {
    expect(decodeAll([bytes('data: {"ok":1}\n\ndata: {"trunc')])).toEqual([{ data: '{"ok":1}' }]);
  });

  it("ignores comments and unknown fields", () => {
    expect(decodeAll([bytes(": keep-alive\n\nfoo: bar\ndata: x\n\n")])).toEqual([{ data: "x" }]);
  });

  it("fails an event that grows beyond its limit", () => {
    const decoder = new SseDecoder(1000);
    expect(() => decoder.decode(bytes(`data: ${"x".repeat(2000)}`))).toThrow(SseOverflowError);
  });

  it("drops a byte order mark opening the stream, even split across chunks, and keeps one inside the text", () => {
    const whole = Uint8Array.of(0xef, 0xbb, 0xbf, ...bytes("data: a\uFEFFb\n\n"));
    expect(decodeAll([whole])).toEqual([{ data: "a\uFEFFb" }]);
    const split = [whole.subarray(0, 1), whole.subarray(1, 2), whole.subarray(2, 5), whole.subarray(5)];
    expect(decodeAll(split)).toEqual([{ data: "a\uFEFFb" }]);
    // Later in the stream it is text: here it spoils the name of the next line's field.
    expect(decodeAll([bytes("data: x\n\n"), Uint8Array.of(0xef, 0xbb, 0xbf), bytes("data: y\n\n")])).toEqual([
      { data: "x" },
    ]);
  });

  it("replaces bytes that are not UTF-8 and an incomplete character at the end of the stream", () => {
    expect(decodeAll([Uint8Array.of(...bytes("data: a"), 0xff, ...bytes("b\n\n"))])).toEqual([
      { data: "a\uFFFDb" },
    ]);
    const cut = [Uint8Array.of(...bytes("data: ok\n\ndata: "), 0xe6, 0x97)];
    expect(decodeAll(cut)).toEqual([{ data: "ok" }]);
  });
});
