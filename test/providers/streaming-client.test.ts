/**
 * `streamBatches` of the streaming client, against the fake provider over real HTTP: the same
 * events as `stream`, in the same order and with the same failure, only grouped by network read.
 */
import { describe, expect, it } from "vitest";
import type { StreamEvent } from "../../src/model/events.js";
import { type LlmClient, LlmClientError } from "../../src/model/llm-client.js";
import { decodeStream, protocolAdapter } from "../../src/providers/index.js";
import { deltas, disconnectAfter, httpError, text } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { ask, clientFor, collect, protocols, retriesOf, textOf } from "./stream-helpers.js";

const fake = withFakeProvider();

/** Runs `client.streamBatches` to the end: its batches, and the error it ended with (if any). */
async function collectBatches(
  client: LlmClient,
): Promise<{ batches: (readonly StreamEvent[])[]; error: LlmClientError | undefined }> {
  const batches: (readonly StreamEvent[])[] = [];
  const stream = client.streamBatches;
  if (stream === undefined) throw new Error("the streaming client has no streamBatches");
  try {
    for await (const batch of stream.call(client, ask(), new AbortController().signal)) batches.push(batch);
    return { batches, error: undefined };
  } catch (error) {
    if (error instanceof LlmClientError) return { batches, error };
    throw error;
  }
}

/** `events` with the fake provider's running ids (`msg_fake000007`) made equal, to compare two responses. */
function withoutIds(events: readonly StreamEvent[]): unknown {
  return JSON.parse(JSON.stringify(events).replace(/_fake\d+/g, "_fake"));
}

describe.each(protocols)("streamBatches (%s)", (protocol) => {
  it("yields exactly the events of stream, several to a batch when a read brings many", async () => {
    fake().queue(
      deltas(2000, (index) => `d${index} `),
      deltas(2000, (index) => `d${index} `),
    );
    const client = clientFor(protocol, fake().baseUrl);
    const single = await collect(client, ask());
    const { batches, error } = await collectBatches(client);
    expect(error).toBeUndefined();
    expect(single.error).toBeUndefined();
    expect(withoutIds(batches.flat())).toEqual(withoutIds(single.events));
    expect(batches.every((batch) => batch.length > 0)).toBe(true);
    expect(batches.length).toBeLessThan(single.events.length / 10);
  });

  it("closes the open blocks and ends with the same error as stream when the connection breaks", async () => {
    const broken = () =>
      disconnectAfter(6, text(["one ", "two ", "three ", "four ", "five ", "six ", "seven "]));
    fake().queue(broken(), broken());
    const client = clientFor(protocol, fake().baseUrl);
    const single = await collect(client, ask());
    const { batches, error } = await collectBatches(client);
    expect(error?.kind).toBe("network");
    expect(error?.message).toBe(single.error?.message);
    expect(withoutIds(batches.flat())).toEqual(withoutIds(single.events));
    expect(batches.flat().some((event) => event.type === "block_abort")).toBe(true);
  });

  it("hands over a retry notice as a batch of its own before the retried response", async () => {
    fake().queue(httpError(503), text("after the retry"));
    const { batches, error } = await collectBatches(clientFor(protocol, fake().baseUrl));
    expect(error).toBeUndefined();
    expect(batches[0]?.map((event) => event.type)).toEqual(["retry"]);
    expect(retriesOf(batches.flat())).toHaveLength(1);
    expect(textOf(batches.flat())).toBe("after the retry");
  });
});

describe("decodeStream", () => {
  it("delivers the events of the messages before a failing one, and none of the failing one's", async () => {
    // The second chunk closes the text block, then fails: its tool call never got a name.
    const text = [
      'data: {"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
      'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n',
    ].join("");
    async function* oneChunk() {
      yield new TextEncoder().encode(text);
    }
    const adapter = protocolAdapter({ protocol: "chat_completions", model: "m", apiKey: "k" }, "k");
    const batches: StreamEvent[][] = [];
    let failure: unknown;
    try {
      for await (const batch of decodeStream(oneChunk(), adapter.createParser(), adapter.provider)) {
        batches.push(batch);
      }
    } catch (error) {
      failure = error;
    }
    expect(failure).toMatchObject({ kind: "protocol", code: "tool_call_without_name" });
    expect(batches.map((batch) => batch.map((event) => event.type))).toEqual([
      ["status", "block_start", "block_delta"],
    ]);
  });
});
