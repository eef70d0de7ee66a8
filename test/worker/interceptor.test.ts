import { describe, expect, it } from "vitest";
import {
  assistantMessage,
  type Item,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "../../src/model/items.js";
import { type Interceptor, Worker, WorkerError } from "../../src/worker/index.js";
import { MockLlmClient, type MockStep } from "../support/mock-llm-client.js";
import { rejectionOf } from "../support/rejection.js";
import { recordingTool, textResponse, toolCallResponse, weatherRoundTrip, weatherTool } from "./scripts.js";

function lockedWith(responses: MockStep[][], interceptor: Interceptor) {
  const client = MockLlmClient.withResponses(responses);
  const worker = new Worker(client, { interceptor });
  worker.registerTool(weatherTool());
  return { client, locked: worker.lock() };
}

const failure = (promise: Promise<unknown>): Promise<WorkerError> =>
  rejectionOf(promise, (error) => error instanceof WorkerError);

describe("interceptor: onPromptSubmit", () => {
  it("commits the replacement item it returns", async () => {
    const { locked, client } = lockedWith([textResponse("ok")], {
      onPromptSubmit: () => ({ action: "continue", item: userMessage("[redacted]") }),
    });
    await locked.run("my password is hunter2");
    expect(locked.history[0]).toEqual(userMessage("[redacted]"));
    expect(client.requests[0]?.items).toEqual([userMessage("[redacted]")]);
  });

  it("cancels the run before anything is committed or sent", async () => {
    const aborts: string[] = [];
    const { locked, client } = lockedWith([textResponse("ok")], {
      onPromptSubmit: () => ({ action: "cancel", reason: "empty input" }),
      onAbort: (reason) => {
        aborts.push(reason);
      },
    });
    const error = await failure(locked.run(""));
    expect(error.kind).toBe("aborted");
    expect(error.reason).toBe("empty input");
    expect(error.message).toBe("Aborted: empty input");
    expect(locked.history).toEqual([]);
    expect(client.calls).toBe(0);
    expect(locked.lastRunInterrupted).toBe(true);
    expect(aborts).toEqual(["empty input"]);
  });
});

describe("interceptor: beforeRequest", () => {
  it("applies edits to that request only, never to history", async () => {
    const { locked, client } = lockedWith([textResponse("ok")], {
      beforeRequest: (items) => {
        const first = items[0];
        if (first?.type === "message") first.content = [{ type: "text", text: "mutated in place" }];
        return { action: "continue", items: [systemMessage("reminder"), ...items] };
      },
    });
    await locked.run("Hi");
    expect(client.requests[0]?.items).toEqual([systemMessage("reminder"), userMessage("mutated in place")]);
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("ok")]);
  });

  it("fails the run with the reason when it cancels, without sending", async () => {
    const { locked, client } = lockedWith([textResponse("ok")], {
      beforeRequest: () => ({ action: "cancel", reason: "budget exhausted" }),
    });
    const error = await failure(locked.run("Hi"));
    expect(error).toMatchObject({ kind: "aborted", reason: "budget exhausted" });
    expect(client.calls).toBe(0);
    expect(locked.history).toEqual([userMessage("Hi")]);
    expect(locked.lastRunInterrupted).toBe(true);
  });

  it("ends the run as yielded without sending, and resume sends it", async () => {
    let yields = 1;
    const { locked, client } = lockedWith([textResponse("ok")], {
      beforeRequest: () => (yields-- > 0 ? { action: "yield" } : { action: "continue" }),
    });
    await expect(locked.run("Hi")).resolves.toBe("yielded");
    expect(client.calls).toBe(0);
    expect(locked.lastRunInterrupted).toBe(true);
    await expect(locked.resume()).resolves.toBe("finished");
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("ok")]);
    expect(locked.lastRunInterrupted).toBe(false);
  });
});

describe("interceptor: inspectRequest", () => {
  it("sees the history itself, not a copy, and what it returns is what is sent", async () => {
    const seen: (readonly Item[])[] = [];
    const { locked, client } = lockedWith([textResponse("ok")], {
      inspectRequest: (items) => {
        seen.push(items);
        return { action: "continue", items: [systemMessage("summary"), ...items] };
      },
    });
    await locked.run("Hi");
    expect(seen[0]).toBe(locked.history);
    expect(client.requests[0]?.items).toEqual([systemMessage("summary"), userMessage("Hi")]);
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("ok")]);
  });

  it("runs before beforeRequest, which edits a copy of what it chose", async () => {
    const { locked, client } = lockedWith([textResponse("ok")], {
      inspectRequest: () => ({ action: "continue", items: [userMessage("chosen")] }),
      beforeRequest: (items) => {
        const first = items[0];
        if (first?.type === "message") first.content = [{ type: "text", text: "edited copy" }];
        return { action: "continue" };
      },
    });
    await locked.run("Hi");
    expect(client.requests[0]?.items).toEqual([userMessage("edited copy")]);
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("ok")]);
  });

  it("cancels or yields the request like beforeRequest", async () => {
    let yields = 1;
    const yielding = lockedWith([textResponse("ok")], {
      inspectRequest: () => (yields-- > 0 ? { action: "yield" } : { action: "continue" }),
    });
    await expect(yielding.locked.run("Hi")).resolves.toBe("yielded");
    expect(yielding.client.calls).toBe(0);
    await expect(yielding.locked.resume()).resolves.toBe("finished");

    const cancelling = lockedWith([textResponse("ok")], {
      inspectRequest: () => ({ action: "cancel", reason: "over budget" }),
      beforeRequest: () => {
        throw new Error("not reached");
      },
    });
    const error = await failure(cancelling.locked.run("Hi"));
    expect(error).toMatchObject({ kind: "aborted", reason: "over budget" });
    expect(cancelling.client.calls).toBe(0);
  });
});

describe("interceptor: beforeToolCall", () => {
  it("runs the rewritten call and files its result under the original call id", async () => {
    const lookup = recordingTool("lookup", "found");
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "lookup", args: '{"q":"raw"}' }),
      textResponse("ok"),
    ]);
    const worker = new Worker(client, {
      interceptor: {
        beforeToolCall: (call, meta) => {
          expect(meta.name).toBe("lookup");
          return { action: "continue", call: { ...call, call_id: "ignored", arguments: '{"q":"safe"}' } };
        },
      },
    });
    worker.registerTool(lookup.definition);
    const locked = worker.lock();
    await locked.run("go");
    expect(lookup.inputs).toEqual(['{"q":"safe"}']);
    expect(locked.history.slice(1, 3)).toEqual([
      toolCall("c1", "lookup", '{"q":"raw"}'),
      toolResult("c1", "found"),
    ]);
  });

  it("answers a skipped call with an error result so no call is left without one", async () => {
    const allowed = recordingTool("allowed");
    const blocked = recordingTool("blocked");
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "allowed", args: "{}" }, { id: "c2", name: "blocked", args: "{}" }),
      textResponse("ok"),
      textResponse("second run"),
    ]);
    const worker = new Worker(client, {
      interceptor: {
        beforeToolCall: (call) =>
          call.name === "blocked" ? { action: "skip", reason: "not allowed here" } : { action: "continue" },
      },
    });
    worker.registerTool(allowed.definition);
    worker.registerTool(blocked.definition);
    const locked = worker.lock();
    await expect(locked.run("go")).resolves.toBe("finished");

    expect(allowed.inputs).toHaveLength(1);
    expect(blocked.inputs).toHaveLength(0);
    const skipped = locked.history.find((item) => item.type === "tool_result" && item.call_id === "c2");
    expect(skipped).toEqual(toolResult("c2", "Tool call skipped: not allowed here", true));
    // The skipped call is not re-run later: a new run finds nothing pending.
    await locked.run("again");
    expect(blocked.inputs).toHaveLength(0);
    expect(client.requests[1]?.items.filter((item) => item.type === "tool_result")).toHaveLength(2);
  });

  it("fails the run when it aborts, committing no result of the batch", async () => {
    const { locked } = lockedWith(weatherRoundTrip(), {
      beforeToolCall: () => ({ action: "abort", reason: "dangerous" }),
    });
    const error = await failure(locked.run("Weather?"));
    expect(error).toMatchObject({ kind: "aborted", reason: "dangerous" });
    expect(locked.history.map((item) => item.type)).toEqual(["message", "tool_call"]);
    expect(locked.lastRunInterrupted).toBe(true);
  });

  it("commits a synthetic result instead of running the tool", async () => {
    const lookup = recordingTool("lookup");
    const worker = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse({ id: "c1", name: "lookup", args: "{}" }),
        textResponse("ok"),
      ]),
      { interceptor: { beforeToolCall: () => ({ action: "result", result: { output: "cached answer" } }) } },
    );
    worker.registerTool(lookup.definition);
    const locked = worker.lock();
    await locked.run("go");
    expect(lookup.inputs).toEqual([]);
    expect(locked.history[2]).toEqual(toolResult("c1", "cached answer"));
  });

  it("pauses before the batch, leaving its calls pending until resume runs them", async () => {
    let approved = false;
    const lookup = recordingTool("lookup", "found");
    const client = MockLlmClient.withResponses([
      toolCallResponse(
        { id: "c1", name: "lookup", args: "{}" },
        { id: "c2", name: "lookup", args: '{"n":2}' },
      ),
      textResponse("done"),
    ]);
    const worker = new Worker(client, {
      interceptor: { beforeToolCall: () => (approved ? { action: "continue" } : { action: "pause" }) },
    });
    worker.registerTool(lookup.definition);
    const locked = worker.lock();

    await expect(locked.run("go")).resolves.toBe("paused");
    expect(lookup.inputs).toEqual([]);
    expect(locked.history.map((item) => item.type)).toEqual(["message", "tool_call", "tool_call"]);
    expect(locked.lastRunInterrupted).toBe(true);

    approved = true;
    await expect(locked.resume()).resolves.toBe("finished");
    expect(lookup.inputs).toEqual(["{}", '{"n":2}']);
    expect(locked.history.slice(3)).toEqual([
      toolResult("c1", "found"),
      toolResult("c2", "found"),
      assistantMessage("done"),
    ]);
    expect(locked.lastRunInterrupted).toBe(false);
  });
});

describe("interceptor: afterToolCall", () => {
  it("commits the result it rewrites", async () => {
    const seen: string[] = [];
    const { locked } = lockedWith(weatherRoundTrip(), {
      afterToolCall: (call, result) => {
        seen.push(`${call.name}:${result.output}`);
        return { action: "continue", result: { output: `[Modified] ${result.output}` } };
      },
    });
    await locked.run("Weather?");
    expect(seen).toEqual(["get_weather:Sunny, 25C"]);
    expect(locked.history[2]).toEqual(toolResult("call_1", "[Modified] Sunny, 25C"));
  });

  it("fails the run when it aborts, committing no result of the batch", async () => {
    const { locked, client } = lockedWith(weatherRoundTrip(), {
      afterToolCall: () => ({ action: "abort", reason: "leaked a secret" }),
    });
    const error = await failure(locked.run("Weather?"));
    expect(error).toMatchObject({ kind: "aborted", reason: "leaked a secret" });
    expect(locked.history.map((item) => item.type)).toEqual(["message", "tool_call"]);
    expect(client.calls).toBe(1);
  });
});

describe("interceptor: onRunEnd", () => {
  it("finishes the run when it says finish", async () => {
    const histories: number[] = [];
    const { locked } = lockedWith([textResponse("ok")], {
      onRunEnd: (history) => {
        histories.push(history.length);
        return { action: "finish" };
      },
    });
    await expect(locked.run("Hi")).resolves.toBe("finished");
    expect(histories).toEqual([2]);
  });

  it("appends its messages and sends another request when it continues", async () => {
    let nudged = false;
    const nudge: Item = userMessage("Are you sure?");
    const { locked, client } = lockedWith([textResponse("first"), textResponse("second")], {
      onRunEnd: () => {
        if (nudged) return { action: "finish" };
        nudged = true;
        return { action: "continue", messages: [nudge] };
      },
    });
    await expect(locked.run("Hi")).resolves.toBe("finished");
    expect(client.requests[1]?.items).toEqual([userMessage("Hi"), assistantMessage("first"), nudge]);
    expect(locked.history).toEqual([
      userMessage("Hi"),
      assistantMessage("first"),
      nudge,
      assistantMessage("second"),
    ]);
    expect(locked.requestCount).toBe(2);
  });

  it("pauses the run, which then counts as interrupted", async () => {
    const { locked } = lockedWith([textResponse("ok")], { onRunEnd: () => ({ action: "pause" }) });
    await expect(locked.run("Hi")).resolves.toBe("paused");
    expect(locked.lastRunInterrupted).toBe(true);
    expect(locked.history).toEqual([userMessage("Hi"), assistantMessage("ok")]);
  });
});

describe("interceptor failures", () => {
  it("turns a throwing hook into an aborted run and tells onAbort", async () => {
    const aborts: string[] = [];
    const { locked } = lockedWith([textResponse("ok")], {
      beforeRequest: () => {
        throw new Error("boom");
      },
      onAbort: () => {
        aborts.push("called");
        throw new Error("onAbort's own failure is ignored");
      },
    });
    const error = await failure(locked.run("Hi"));
    expect(error.kind).toBe("aborted");
    expect(error.message).toBe("Aborted: interceptor beforeRequest failed: boom");
    expect(error.cause).toBeInstanceOf(Error);
    expect(aborts).toEqual(["called"]);
  });

  it("turns an unknown action into an aborted run", async () => {
    const { locked } = lockedWith([textResponse("ok")], {
      onRunEnd: () => ({ action: "explode" }) as unknown as { action: "finish" },
    });
    const error = await failure(locked.run("Hi"));
    expect(error.kind).toBe("aborted");
    expect(error.message).toContain("unknown action");
  });

  it("passes the failure message of any failed run to onAbort", async () => {
    const aborts: string[] = [];
    const { locked } = lockedWith([], { onAbort: (reason) => void aborts.push(reason) });
    await failure(locked.run("Hi"));
    expect(aborts).toEqual(["Client error: No more mock responses"]);
  });
});
