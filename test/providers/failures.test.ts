import { describe, expect, it } from "vitest";
import { createLlmClient } from "../../src/providers/index.js";
import {
  deliver,
  disconnectAfter,
  encodeContext,
  encodeReply,
  hang,
  hangAfter,
  httpError,
  raw,
  sse,
  text,
} from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { freePort } from "../support/free-port.js";
import { ask, assertWellFormed, clientFor, collect, protocols, retriesOf, textOf } from "./stream-helpers.js";

const fake = withFakeProvider({ script: () => text("unexpected extra request") });

/** A provider error event in each protocol's own shape. */
const errorEvents = {
  chat_completions: sse({ error: { message: "upstream exploded", type: "server_error", code: "boom" } }),
  responses: sse({ type: "error", code: "boom", message: "upstream exploded", sequence_number: 0 }, "error"),
  anthropic: sse({ type: "error", error: { type: "boom", message: "upstream exploded" } }, "error"),
  gemini: sse({ error: { code: 500, message: "upstream exploded", status: "boom" } }),
} as const;

/** One valid first event per protocol, so a later failure happens mid-stream. */
const firstEvents = {
  chat_completions: sse({ choices: [{ index: 0, delta: { content: "partial" }, finish_reason: null }] }),
  responses: sse(
    { type: "response.created", response: { id: "resp_1", status: "in_progress" } },
    "response.created",
  ),
  anthropic: sse(
    { type: "message_start", message: { id: "msg_1", usage: { input_tokens: 1 } } },
    "message_start",
  ),
  gemini: sse({ candidates: [{ content: { role: "model", parts: [{ text: "partial" }] }, index: 0 }] }),
} as const;

describe.each(protocols)("%s failures", (protocol) => {
  it("turns an HTTP error into a typed error with status, provider code, message and Retry-After", async () => {
    fake().queue(httpError(400, { code: "bad_thing", message: "the request was bad", retryAfter: 7 }));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(events).toEqual([]);
    expect(error?.kind).toBe("http");
    expect(error?.status).toBe(400);
    expect(error?.code).toBe("bad_thing");
    expect(error?.message).toContain("the request was bad");
    expect(error?.retryAfterMs).toBe(7000);
    expect(fake().requests).toHaveLength(1);
  });

  it("retries a 429 and a 503 while opening, reporting each retry as an event", async () => {
    fake().queue(httpError(429), httpError(503), text("finally"));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("finally");
    const retries = retriesOf(events);
    expect(retries.map((retry) => [retry.attempt, retry.status])).toEqual([
      [1, 429],
      [2, 503],
    ]);
    expect(retries.every((retry) => retry.max_attempts === 4 && retry.delay_ms >= 0)).toBe(true);
    expect(events.findIndex((event) => event.type === "retry")).toBe(0);
    expect(fake().requests).toHaveLength(3);
  });

  it("honours Retry-After instead of its own backoff", async () => {
    fake().queue(httpError(529, { retryAfter: 1 }), text("after the wait"));
    const started = Date.now();
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error).toBeUndefined();
    expect(retriesOf(events)).toEqual([
      { attempt: 1, max_attempts: 4, delay_ms: 1000, reason: expect.stringContaining("529"), status: 529 },
    ]);
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(textOf(events)).toBe("after the wait");
  });

  it("does not retry a 400 or a 401", async () => {
    for (const status of [400, 401]) {
      fake().reset();
      fake().queue(httpError(status), text("never sent"));
      const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
      expect(error?.status).toBe(status);
      expect(retriesOf(events)).toEqual([]);
      expect(fake().requests).toHaveLength(1);
    }
  });

  it("gives up after the last attempt with the last error", async () => {
    fake().queue(httpError(503), httpError(503), httpError(502, { message: "still down" }));
    const client = clientFor(protocol, fake().baseUrl, { retry: { maxAttempts: 3, baseDelayMs: 1 } });
    const { events, error } = await collect(client, ask());
    expect(error?.status).toBe(502);
    expect(error?.message).toContain("still down");
    expect(retriesOf(events)).toHaveLength(2);
    expect(fake().requests).toHaveLength(3);
  });

  it("stops retrying when the next wait would exceed the total time budget", async () => {
    fake().queue(httpError(429, { retryAfter: 30 }), text("never sent"));
    const client = clientFor(protocol, fake().baseUrl, { retry: { totalTimeMs: 5_000 } });
    const { events, error } = await collect(client, ask());
    expect(error?.status).toBe(429);
    expect(error?.retryAfterMs).toBe(30_000);
    expect(retriesOf(events)).toEqual([]);
  });

  it("retries a connection that closes before anything was received", async () => {
    fake().queue(disconnectAfter(0, text("lost")), text("second try"));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error).toBeUndefined();
    expect(retriesOf(events)).toHaveLength(1);
    expect(textOf(events)).toBe("second try");
  });

  it("ends a stream that breaks mid-way with a network error, keeping the text already received", async () => {
    fake().queue(disconnectAfter(6, text(["one ", "two ", "three ", "four ", "five ", "six ", "seven "])));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error?.kind).toBe("network");
    expect(error?.message).toMatch(/stream (broke|ended before)/);
    expect(textOf(events).startsWith("one two")).toBe(true);
    expect(retriesOf(events)).toEqual([]);
    assertWellFormed(events);
    expect(events.some((event) => event.type === "block_abort")).toBe(true);
    expect(fake().requests).toHaveLength(1);
  });

  it("treats a stream that ends cleanly before its terminal event as incomplete, retrying it when only its start came", async () => {
    fake().queue(raw([firstEvents[protocol]]), text("second try"));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    // Responses and Anthropic open with a bare start event; Chat and Gemini with content.
    if (protocol === "responses" || protocol === "anthropic") {
      expect(error).toBeUndefined();
      expect(retriesOf(events)).toHaveLength(1);
      expect(textOf(events)).toBe("second try");
      expect(fake().requests).toHaveLength(2);
    } else {
      expect(error?.kind).toBe("network");
      expect(error?.code).toBe("incomplete_stream");
      expect(fake().requests).toHaveLength(1);
    }
  });

  it("turns a stalled stream into a timeout error instead of hanging", async () => {
    fake().queue(hangAfter(4, text(["a", "b", "c", "d", "e", "f"])));
    const client = clientFor(protocol, fake().baseUrl, { idleTimeoutMs: 300 });
    const { events, error } = await collect(client, ask());
    expect(error?.kind).toBe("timeout");
    expect(error?.code).toBe("idle_timeout");
    assertWellFormed(events);
    await fake().lastRequest.closed;
  });

  it("times out a provider that never sends response headers", async () => {
    fake().queue(hang());
    const client = clientFor(protocol, fake().baseUrl, { idleTimeoutMs: 300 });
    const { error } = await collect(client, ask());
    expect(error?.kind).toBe("timeout");
    expect(fake().requests).toHaveLength(1);
  });

  it("aborts the HTTP request at once when cancelled mid-stream", async () => {
    fake().queue(hangAfter(3, text(["a", "b", "c", "d"])));
    const controller = new AbortController();
    const client = clientFor(protocol, fake().baseUrl);
    const seen: string[] = [];
    let caught: unknown;
    try {
      for await (const event of client.stream(ask(), controller.signal)) {
        seen.push(event.type);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ name: "LlmClientError", kind: "aborted" });
    expect(seen).toEqual(["status"]);
    await fake().lastRequest.closed;
    expect(fake().lastRequest.clientAborted).toBe(true);
  });

  it("closes the connection when the consumer stops reading", async () => {
    fake().queue(hangAfter(3, text(["a", "b", "c"])));
    for await (const event of clientFor(protocol, fake().baseUrl).stream(
      ask(),
      new AbortController().signal,
    )) {
      expect(event.type).toBe("status");
      break;
    }
    await fake().lastRequest.closed;
    expect(fake().lastRequest.clientAborted).toBe(true);
  });

  it("does not mistake a slow but steady stream for a stall", async () => {
    fake().queue(deliver(text(["s", "l", "o", "w", "!"]), { delayMs: 100 }));
    const { events, error } = await collect(
      clientFor(protocol, fake().baseUrl, { idleTimeoutMs: 500 }),
      ask(),
    );
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("slow!");
  });

  it("aborts while waiting for response headers", async () => {
    fake().queue(hang());
    const controller = new AbortController();
    const pending = collect(clientFor(protocol, fake().baseUrl), ask(), controller.signal);
    await fake().waitForRequests(1);
    controller.abort();
    const { error } = await pending;
    expect(error?.kind).toBe("aborted");
    await fake().lastRequest.closed;
    expect(fake().lastRequest.clientAborted).toBe(true);
  });

  it("aborts while waiting to retry", async () => {
    fake().queue(httpError(429, { retryAfter: 30 }));
    const controller = new AbortController();
    const client = clientFor(protocol, fake().baseUrl);
    const events: string[] = [];
    let caught: unknown;
    try {
      for await (const event of client.stream(ask(), controller.signal)) {
        events.push(event.type);
        if (event.type === "retry") controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(events).toEqual(["retry"]);
    expect(caught).toMatchObject({ kind: "aborted" });
  });

  it("does not even send the request when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    const { error } = await collect(clientFor(protocol, fake().baseUrl), ask(), controller.signal);
    expect(error?.kind).toBe("aborted");
    expect(fake().requests).toHaveLength(0);
  });

  it("turns a provider error event into a typed api error", async () => {
    fake().queue(raw([firstEvents[protocol], errorEvents[protocol]]));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error?.kind).toBe("api");
    expect(error?.code).toBe("boom");
    expect(error?.message).toContain("upstream exploded");
    assertWellFormed(events);
  });

  it("reports invalid JSON in a data line as a protocol error, after the events before it", async () => {
    fake().queue(raw([firstEvents[protocol], "data: {not json\n\n"]));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error?.kind).toBe("protocol");
    expect(error?.code).toBe("invalid_json");
    expect(error?.message).toContain("{not json");
    expect(events[0]).toEqual({ type: "status", status: "started" });
    assertWellFormed(events);
  });

  it("ignores SSE comments, ids and unknown fields between events", async () => {
    const frames = [...encodeReply(protocol, text("still fine"), encodeContext("test-model"))];
    fake().queue(raw(frames.flatMap((frame) => [": keep-alive\n\n", `id: 7\nx-unknown: yes\n${frame}`])));
    const { events, error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toBe("still fine");
    assertWellFormed(events);
  });
});

describe("connect failures", () => {
  it("retries a refused connection, then reports it as a network error", async () => {
    const port = await freePort();
    const client = createLlmClient(
      { protocol: "chat_completions", baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" },
      { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 } },
    );
    const { events, error } = await collect(client, ask());
    expect(error?.kind).toBe("network");
    expect(error?.code).toBe("ECONNREFUSED");
    expect(retriesOf(events).map((retry) => retry.attempt)).toEqual([1, 2]);
  });
});
