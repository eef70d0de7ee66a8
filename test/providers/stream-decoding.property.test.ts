/**
 * Properties of the whole decoding path (bytes → SSE → protocol parser → events), per protocol:
 * any split of the same byte stream into chunks gives the same events, the events carry the
 * reply's text and tool calls intact, and no input, however broken, makes a parser fail with
 * anything but a typed LlmClientError.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../src/model/events.js";
import { LlmClientError } from "../../src/model/llm-client.js";
import { decodeStream, protocolAdapter } from "../../src/providers/index.js";
import type { ProviderProtocol } from "../../src/providers/provider-profile.js";
import {
  encodeContext,
  encodeReplyText,
  type ReplyPart,
  type StreamReply,
  sse,
  stream,
} from "../support/fake-provider/index.js";
import { assertWellFormed, protocols, textOf, toolCallsOf } from "./stream-helpers.js";

function parserFor(protocol: ProviderProtocol) {
  const adapter = protocolAdapter({ protocol, model: "m", apiKey: "k" }, "k");
  return { parser: adapter.createParser(), provider: adapter.provider };
}

async function* fromChunks(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** Decodes `chunks` with a fresh parser; the error, if any, is returned, not thrown. */
async function decode(
  protocol: ProviderProtocol,
  chunks: Uint8Array[],
): Promise<{ events: StreamEvent[]; error: unknown }> {
  const { parser, provider } = parserFor(protocol);
  const events: StreamEvent[] = [];
  try {
    for await (const batch of decodeStream(fromChunks(chunks), parser, provider)) events.push(...batch);
    return { events, error: undefined };
  } catch (error) {
    return { events, error };
  }
}

/** `bytes` cut at the given positions. */
function cut(bytes: Uint8Array, positions: number[]): Uint8Array[] {
  const sorted = [...new Set(positions.map((p) => p % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const position of sorted) {
    chunks.push(bytes.subarray(start, position));
    start = position;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const unicodeText = fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 });
const deltaList = fc.array(unicodeText, { minLength: 1, maxLength: 5 });

const partArb: fc.Arbitrary<ReplyPart> = fc.oneof(
  deltaList.map((deltas) => ({ type: "text", deltas }) as ReplyPart),
  fc
    .record({
      deltas: deltaList,
      signature: fc.option(fc.base64String({ minLength: 4, maxLength: 40 }), { nil: undefined }),
    })
    .map(({ deltas, signature }) =>
      signature === undefined
        ? ({ type: "reasoning", deltas } as ReplyPart)
        : ({ type: "reasoning", deltas, signature } as ReplyPart),
    ),
  fc
    .record({
      name: fc.constantFrom("get_weather", "search", "read_file"),
      args: fc.dictionary(
        fc.string({ maxLength: 6 }),
        fc.oneof(fc.string({ unit: "grapheme", maxLength: 8 }), fc.integer()),
      ),
      id: fc.uuid(),
      pieces: fc.integer({ min: 1, max: 6 }),
    })
    .map(
      ({ name, args, id, pieces }) =>
        ({ type: "tool_call", name, arguments: JSON.stringify(args), id, pieces }) as ReplyPart,
    ),
);

const replyArb: fc.Arbitrary<StreamReply> = fc
  .record({
    parts: fc.array(partArb, { minLength: 1, maxLength: 6 }),
    stop: fc.constantFrom("end_turn", "max_tokens", "content_filter") as fc.Arbitrary<
      "end_turn" | "max_tokens" | "content_filter"
    >,
  })
  .map(({ parts, stop }) => stream(parts, { stop, usage: { input: 12, output: 7, cached: 3 } }));

const encoder = new TextEncoder();

describe.each(protocols)("%s decoding", (protocol) => {
  it("gives the same events for any split of the same byte stream", async () => {
    await fc.assert(
      fc.asyncProperty(replyArb, fc.array(fc.nat(), { maxLength: 40 }), async (reply, positions) => {
        const bytes = encoder.encode(encodeReplyText(protocol, reply, encodeContext("m")));
        const whole = await decode(protocol, [bytes]);
        const split = await decode(protocol, cut(bytes, positions));
        expect(whole.error).toBeUndefined();
        expect(split.error).toBeUndefined();
        expect(split.events).toEqual(whole.events);
      }),
      { numRuns: 150 },
    );
  });

  it("gives the same events when every byte arrives alone", async () => {
    await fc.assert(
      fc.asyncProperty(replyArb, async (reply) => {
        const bytes = encoder.encode(encodeReplyText(protocol, reply, encodeContext("m")));
        const whole = await decode(protocol, [bytes]);
        const single = await decode(
          protocol,
          Array.from(bytes, (byte) => Uint8Array.of(byte)),
        );
        expect(single.events).toEqual(whole.events);
      }),
      { numRuns: 25 },
    );
  });

  it("delivers the reply's text and tool calls intact in well-formed blocks", async () => {
    await fc.assert(
      fc.asyncProperty(replyArb, async (reply) => {
        const bytes = encoder.encode(encodeReplyText(protocol, reply, encodeContext("m")));
        const { events, error } = await decode(protocol, [bytes]);
        expect(error).toBeUndefined();
        assertWellFormed(events);
        const expectedText = reply.parts
          .flatMap((part) => (part.type === "text" ? part.deltas : []))
          .join("");
        expect(textOf(events)).toBe(expectedText);
        const expectedCalls = reply.parts.flatMap((part) =>
          part.type === "tool_call" ? [{ id: part.id, name: part.name, args: part.arguments }] : [],
        );
        expect(toolCallsOf(events).map(({ id, name, args }) => ({ id, name, args }))).toEqual(expectedCalls);
        expect(events.at(-1)?.type).toBe("status");
      }),
      { numRuns: 150 },
    );
  });

  it("fails only with typed errors on arbitrary garbage", async () => {
    const eventNames = fc.constantFrom(
      undefined,
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
      "error",
      "response.output_item.added",
      "response.output_text.delta",
      "response.completed",
      "x",
    );
    const wireTypes = fc.constantFrom(
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
      "ping",
      "response.created",
      "response.output_item.added",
      "response.output_item.done",
      "response.content_part.added",
      "response.content_part.done",
      "response.output_text.delta",
      "response.function_call_arguments.delta",
      "response.reasoning_summary_text.delta",
      "response.completed",
      "response.incomplete",
    );
    const structured = fc.record(
      {
        type: wireTypes,
        index: fc.oneof(fc.nat(3), fc.string()),
        output_index: fc.oneof(fc.nat(3), fc.constant(null)),
        content_index: fc.nat(2),
        summary_index: fc.oneof(fc.nat(2), fc.constant(-1)),
        delta: fc.oneof(fc.string(), fc.jsonValue()),
        item: fc.jsonValue(),
        content_block: fc.jsonValue(),
        choices: fc.jsonValue(),
        candidates: fc.jsonValue(),
        response: fc.jsonValue(),
        usage: fc.jsonValue(),
        error: fc.oneof(fc.constant(undefined), fc.jsonValue()),
      },
      { requiredKeys: ["type"] },
    );
    const frame = fc.oneof(
      fc
        .tuple(fc.oneof(structured, fc.jsonValue()), eventNames)
        .map(([data, name]) => sse(JSON.stringify(data), name)),
      fc.string().map((data) => sse(data)),
      fc.constant(sse("[DONE]")),
      fc.string(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(frame, { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (frames, positions) => {
          const { error } = await decode(protocol, cut(encoder.encode(frames.join("")), positions));
          if (error !== undefined) expect(error).toBeInstanceOf(LlmClientError);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("fails with a typed error on an error object or array with no string form", async () => {
    // Found by the property above: String() of a parsed {"toString": null} throws a TypeError.
    const encoder = new TextEncoder();
    for (const error of ['{"toString":null}', '[{"toString":null}]']) {
      const frame = `data: {"type":"message_start","error":${error}}\n\n`;
      const decoded = await decode(protocol, [encoder.encode(frame)]);
      if (decoded.error !== undefined) expect(decoded.error).toBeInstanceOf(LlmClientError);
    }
  });
});
