import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import {
  type StreamEvent,
  statusEvent,
  textBlockStart,
  textDelta,
  thinkingBlockStart,
  thinkingBlockStop,
  thinkingDelta,
  toolInputDelta,
  toolUseStart,
} from "../../src/model/events.js";
import { assistantMessage, reasoning, userMessage } from "../../src/model/items.js";
import type { LlmClient } from "../../src/model/llm-client.js";
import { Worker, WorkerError } from "../../src/worker/index.js";
import { MockLlmClient, mockHang } from "../support/mock-llm-client.js";
import { rejectionOf } from "../support/rejection.js";
import { deferred, defineTool, textResponse, toolCallResponse } from "./scripts.js";

const failure = (promise: Promise<unknown>): Promise<WorkerError> =>
  rejectionOf(promise, (error) => error instanceof WorkerError);

/** A worker whose stream sends a partial text block and then hangs; `streaming` resolves at the delta. */
function hangingStream(ignoreAbort = false) {
  const streaming = deferred();
  const client = MockLlmClient.withResponses([
    [textBlockStart(0), textDelta(0, "Half a sent"), mockHang(ignoreAbort)],
    textResponse("Hello!"),
  ]);
  const worker = new Worker(client, {
    observer: { onEvent: (event) => event.type === "block_delta" && streaming.resolve() },
  });
  return { client, locked: worker.lock(), streaming: streaming.promise };
}

describe("cancellation", () => {
  it("cancels mid-stream: aborts the client's signal and commits nothing of the response", async () => {
    const { client, locked, streaming } = hangingStream();
    const running = locked.run("Hi");
    await streaming;
    locked.cancel("user pressed stop");

    const error = await failure(running);
    expect(error.kind).toBe("cancelled");
    expect(error.message).toBe("Cancelled");
    expect(error.reason).toBe("user pressed stop");
    expect(client.signals[0]?.aborted).toBe(true);
    expect(locked.history).toEqual([userMessage("Hi")]);
    expect(locked.lastRunInterrupted).toBe(true);
    expect(locked.requestCount).toBe(0);

    // The half-finished block does not leak into the next response.
    await expect(locked.resume()).resolves.toBe("finished");
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("Hello!")]);
  });

  it("gives the cancellation error what the answer had streamed, by value, without its tool calls", async () => {
    const streaming = deferred();
    const client = MockLlmClient.withResponses([
      [
        thinkingBlockStart(0),
        thinkingDelta(0, "Let me think"),
        thinkingBlockStop(0, { text: "Let me think", signature: "sig" }),
        thinkingBlockStart(1),
        thinkingDelta(1, "more"),
        textBlockStart(2),
        textDelta(2, "Half "),
        textDelta(2, "a sent"),
        toolUseStart(3, "call_1", "shell"),
        toolInputDelta(3, '{"comm'),
        mockHang(),
      ],
    ]);
    const worker = new Worker(client, {
      observer: {
        onEvent: (event) => event.type === "block_start" && event.index === 3 && streaming.resolve(),
      },
    });
    const locked = worker.lock();
    const running = locked.run("Hi");
    await streaming.promise;
    locked.cancel();
    const error = await failure(running);
    expect(error.kind).toBe("cancelled");
    // No signature, id or tool call: an unfinished response's payloads are not sent back.
    expect(error.partial).toEqual([
      reasoning("Let me think"),
      reasoning("more"),
      assistantMessage("Half a sent"),
    ]);
    expect(locked.history).toEqual([userMessage("Hi")]);
  });

  it("gives a cancellation before any output no partial answer", async () => {
    const { locked } = hangingStream();
    const running = locked.run("Hi");
    locked.cancel();
    expect((await failure(running)).partial).toBeUndefined();
  });

  it("stops at once even when the stream ignores its abort signal", async () => {
    const { locked, streaming } = hangingStream(true);
    const running = locked.run("Hi");
    await streaming;
    locked.cancel();
    await expect(failure(running)).resolves.toMatchObject({ kind: "cancelled" });
    expect(locked.history).toEqual([userMessage("Hi")]);
  });

  it("cancels through the AbortSignal given to run", async () => {
    const { locked, streaming } = hangingStream();
    const controller = new AbortController();
    const running = locked.run("Hi", { signal: controller.signal });
    await streaming;
    controller.abort("caller gave up");
    await expect(failure(running)).resolves.toMatchObject({ kind: "cancelled", reason: "caller gave up" });
    expect(locked.lastRunInterrupted).toBe(true);
  });

  it("cancels mid-tools: aborts the tools' signal and commits no tool result", async () => {
    const started = deferred();
    let toolSawAbort = false;
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "long_job", args: "{}" }),
      textResponse("never sent"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(
      defineTool("long_job", (_input, context) => {
        started.resolve();
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => {
            toolSawAbort = true;
            reject(new Error("stopped"));
          });
        });
      }),
    );
    const locked = worker.lock();
    const controller = new AbortController();
    const running = locked.run("Run the job", { signal: controller.signal });
    await started.promise;
    controller.abort();

    await expect(failure(running)).resolves.toMatchObject({ kind: "cancelled" });
    expect(toolSawAbort).toBe(true);
    expect(locked.history.map((item) => item.type)).toEqual(["message", "tool_call"]);
    expect(locked.lastRunInterrupted).toBe(true);
    expect(client.calls).toBe(1);
  });

  it("does not cancel a run with a cancel sent before it started", async () => {
    const locked = new Worker(new MockLlmClient(textResponse("Hello!"))).lock();
    locked.cancel();
    await expect(locked.run("Hi")).resolves.toBe("finished");
  });

  it("treats an already aborted signal as a cancel before anything is committed", async () => {
    const client = new MockLlmClient(textResponse("Hello!"));
    const locked = new Worker(client).lock();
    await expect(failure(locked.run("Hi", { signal: AbortSignal.abort() }))).resolves.toMatchObject({
      kind: "cancelled",
    });
    expect(locked.history).toEqual([]);
    expect(client.calls).toBe(0);
  });

  it("cancels a run waiting on a slow interceptor hook", async () => {
    const asked = deferred();
    const worker = new Worker(new MockLlmClient(textResponse("Hello!")), {
      interceptor: {
        beforeRequest: () => {
          asked.resolve();
          return new Promise(() => undefined);
        },
      },
    });
    const locked = worker.lock();
    const running = locked.run("Hi");
    await asked.promise;
    locked.cancel();
    await expect(failure(running)).resolves.toMatchObject({ kind: "cancelled" });
  });

  it("keeps no handled stream event alive while it races the stream against a cancel", async () => {
    // Racing each step against one long-lived "cancelled" promise left a reaction on it per step,
    // and each reaction held its step's event until the run ended: a long answer kept every delta.
    setFlagsFromString("--expose-gc");
    const collectGarbage = runInNewContext("gc") as () => void;
    let first: WeakRef<StreamEvent> | undefined;
    let collectedMidStream: boolean | undefined;
    const watched = (): StreamEvent => {
      const event = textDelta(0, "a".repeat(1024));
      first = new WeakRef(event);
      return event;
    };
    const client: LlmClient = {
      provider: "mock",
      async *stream() {
        yield textBlockStart(0);
        yield watched();
        for (let i = 0; i < 20; i++) yield textDelta(0, "b");
        // Let the run finish with the event it is handling, then look while the stream still runs.
        await new Promise((resolve) => setImmediate(resolve));
        collectGarbage();
        collectedMidStream = first !== undefined && first.deref() === undefined;
        yield statusEvent("completed", "end_turn");
      },
    };
    const locked = new Worker(client).lock();
    await expect(locked.run("Hi")).resolves.toBe("finished");
    expect(first).toBeDefined();
    expect(collectedMidStream).toBe(true);
    expect(locked.history).toEqual([
      userMessage("Hi"),
      assistantMessage(`${"a".repeat(1024)}${"b".repeat(20)}`),
    ]);
  });
});
