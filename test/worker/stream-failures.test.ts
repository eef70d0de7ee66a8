import { describe, expect, it } from "vitest";
import {
  errorEvent,
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
  usageEvent,
} from "../../src/model/events.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { LlmClientError } from "../../src/model/llm-client.js";
import { Worker, WorkerError } from "../../src/worker/index.js";
import { MockLlmClient, mockFail } from "../support/mock-llm-client.js";
import { rejectionOf } from "../support/rejection.js";
import { recordingTool, textResponse, weatherTool } from "./scripts.js";

const failure = (promise: Promise<unknown>): Promise<WorkerError> =>
  rejectionOf(promise, (error) => error instanceof WorkerError);

describe("stream failures", () => {
  it("commits nothing of a response whose stream fails, even blocks that were complete", async () => {
    const lookup = recordingTool("lookup");
    const client = MockLlmClient.withResponses([
      [
        textBlockStart(0),
        textDelta(0, "Partial answer"),
        textBlockStop(0),
        toolUseStart(1, "c1", "lookup"),
        toolInputDelta(1, "{}"),
        toolUseStop(1),
        mockFail(new LlmClientError("network", "mock", "connection reset")),
      ],
      textResponse("Hello!"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(lookup.definition);
    const locked = worker.lock();

    const error = await failure(locked.run("Hi"));
    expect(error.kind).toBe("client");
    expect(error.message).toBe("Client error: connection reset");
    expect(error.cause).toBeInstanceOf(LlmClientError);
    expect(locked.history).toEqual([userMessage("Hi")]);
    expect(lookup.inputs).toEqual([]);
    expect(locked.lastRunInterrupted).toBe(true);

    await expect(locked.resume()).resolves.toBe("finished");
    expect(client.requests[1]?.items).toEqual([userMessage("Hi")]);
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("Hello!")]);
  });

  it("ends the request with a client error when the stream sends an error event", async () => {
    const client = new MockLlmClient([
      textBlockStart(0),
      textDelta(0, "Hel"),
      errorEvent("Overloaded", "overloaded_error"),
      textDelta(0, "lo"),
      textBlockStop(0),
    ]);
    const locked = new Worker(client).lock();
    const error = await failure(locked.run("Hi"));
    expect(error.kind).toBe("client");
    expect(error.message).toBe("Client error: Overloaded");
    const cause = error.cause as LlmClientError;
    expect(cause).toBeInstanceOf(LlmClientError);
    expect(cause.kind).toBe("api");
    expect(cause.code).toBe("overloaded_error");
    expect(cause.provider).toBe("mock");
    expect(locked.history).toEqual([userMessage("Hi")]);
    // The stream was abandoned at the error event.
    expect(client.emitted).toHaveLength(3);
  });

  it("fails with the mock's 500 when the script runs out of responses", async () => {
    const locked = new Worker(new MockLlmClient(textResponse("only one"))).lock();
    await locked.run("first");
    const error = await failure(locked.run("second"));
    const cause = error.cause as LlmClientError;
    expect(cause).toMatchObject({
      kind: "api",
      status: 500,
      code: "mock_error",
      message: "No more mock responses",
    });
  });

  it("wraps anything else a client throws as a client error", async () => {
    const client = {
      provider: "broken",
      stream(): AsyncIterable<never> {
        throw new TypeError("not iterable today");
      },
    };
    const locked = new Worker(client).lock();
    const error = await failure(locked.run("Hi"));
    expect(error.kind).toBe("client");
    expect(error.cause).toMatchObject({ kind: "network", provider: "broken" });
  });

  it("does not run the tools of a response that failed after its tool block was complete", async () => {
    const worker = new Worker(
      new MockLlmClient([
        toolUseStart(0, "c1", "get_weather"),
        toolInputDelta(0, '{"city":"Tokyo"}'),
        toolUseStop(0),
        usageEvent(5, 5),
        errorEvent("stream broke"),
        statusEvent("failed"),
      ]),
    );
    worker.registerTool(weatherTool());
    const locked = worker.lock();
    await failure(locked.run("Weather?"));
    expect(locked.history).toEqual([userMessage("Weather?")]);
  });
});
