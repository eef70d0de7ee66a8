import { describe, expect, it } from "vitest";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import {
  DuplicateToolNameError,
  type LockedWorker,
  Worker,
  WorkerStateError,
} from "../../src/worker/index.js";
import { MockLlmClient, mockDelay } from "../support/mock-llm-client.js";
import { recordingTool, textResponse, toolCallResponse } from "./scripts.js";

describe("Worker lock and unlock", () => {
  it("records the history length at lock as the locked prefix and keeps it through a run", async () => {
    const worker = new Worker(new MockLlmClient(textResponse("Hello!")));
    worker.pushItem(userMessage("earlier"));
    worker.pushItem(assistantMessage("reply"));
    const locked = worker.lock();
    expect(locked.lockedPrefixLen).toBe(2);

    await locked.run("Hi");
    expect(locked.history).toHaveLength(4);
    expect(locked.lockedPrefixLen).toBe(2);

    const unlocked = locked.unlock();
    expect(unlocked).toBe(worker);
    expect(locked.lockedPrefixLen).toBe(0);
    expect(worker.history).toHaveLength(4);
  });

  it("keeps the system prompt and history when locking and unlocking", () => {
    const worker = new Worker(new MockLlmClient([]));
    worker.setSystemPrompt("Be brief.");
    worker.pushItem(userMessage("a"));
    const locked = worker.lock();
    expect(locked.systemPrompt).toBe("Be brief.");
    expect(locked.history).toEqual([userMessage("a")]);
    locked.unlock().setSystemPrompt("Be verbose.");
    expect(worker.systemPrompt).toBe("Be verbose.");
  });

  it("keeps tools registered before an unlock effective after relocking", async () => {
    const lookup = recordingTool("lookup", "found");
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "lookup", args: "{}" }),
      textResponse("first"),
      toolCallResponse({ id: "c2", name: "lookup", args: '{"q":2}' }),
      textResponse("second"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(lookup.definition);

    const first = worker.lock();
    await first.run("one");
    first.unlock().setSystemPrompt("edited while unlocked");
    const second = worker.lock();
    await second.run("two");

    expect(lookup.inputs).toEqual(["{}", '{"q":2}']);
    expect(second.tools.map((tool) => tool.name)).toEqual(["lookup"]);
    expect(client.requests[2]?.system_prompt).toBe("edited while unlocked");
  });

  it("materialises tool factories at lock, not at registration", () => {
    let made = 0;
    const worker = new Worker(new MockLlmClient([]));
    worker.registerTool(() => {
      made += 1;
      return { meta: { name: "t", description: "", input_schema: {} }, tool: { execute: async () => "" } };
    });
    expect(made).toBe(0);
    expect(worker.tools).toEqual([]);
    worker.lock();
    expect(made).toBe(1);
  });

  it("throws a typed error at lock for a duplicate tool name and stays usable", () => {
    const worker = new Worker(new MockLlmClient([]));
    worker.registerTool(recordingTool("same").definition);
    worker.registerTool(recordingTool("same").definition);
    let thrown: unknown;
    try {
      worker.lock();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(DuplicateToolNameError);
    expect((thrown as DuplicateToolNameError).toolName).toBe("same");
    expect(worker.isLocked).toBe(false);
    expect(worker.tools).toEqual([]);
    expect(() => worker.lock()).not.toThrow();
  });

  it("rejects a tool whose name clashes with one materialised by an earlier lock", () => {
    const worker = new Worker(new MockLlmClient([]));
    worker.registerTool(recordingTool("same").definition);
    worker.lock().unlock();
    worker.registerTool(recordingTool("same").definition);
    expect(() => worker.lock()).toThrow(DuplicateToolNameError);
    expect(worker.tools.map((tool) => tool.name)).toEqual(["same"]);
  });

  it("offers no mutators on the locked type and refuses them at run time", () => {
    const worker = new Worker(new MockLlmClient([]));
    const locked: LockedWorker = worker.lock();
    const tool = recordingTool("late").definition;

    // @ts-expect-error registerTool is not part of LockedWorker
    expect(() => locked.registerTool(tool)).toThrow(TypeError);
    // @ts-expect-error setSystemPrompt is not part of LockedWorker
    expect(() => locked.setSystemPrompt("x")).toThrow(TypeError);
    // @ts-expect-error setHistory is not part of LockedWorker
    expect(() => locked.setHistory([])).toThrow(TypeError);
    // @ts-expect-error pushItem is not part of LockedWorker
    expect(() => locked.pushItem(userMessage("x"))).toThrow(TypeError);
    // @ts-expect-error setRequestConfig is kept off LockedWorker
    expect(() => locked.setRequestConfig({})).toThrow(TypeError);

    const mutators: Array<[string, () => void]> = [
      ["registerTool", () => worker.registerTool(tool)],
      ["setSystemPrompt", () => worker.setSystemPrompt("x")],
      ["setHistory", () => worker.setHistory([])],
      ["pushItem", () => worker.pushItem(userMessage("x"))],
      ["setRequestConfig", () => worker.setRequestConfig({ max_tokens: 5 })],
      ["setInterceptor", () => worker.setInterceptor({})],
      ["setObserver", () => worker.setObserver({})],
      ["setRequestCount", () => worker.setRequestCount(3)],
      ["setMaxRequests", () => worker.setMaxRequests(3)],
      ["setLastRunInterrupted", () => worker.setLastRunInterrupted(true)],
      ["lock", () => worker.lock()],
    ];
    for (const [name, call] of mutators) {
      let thrown: unknown;
      try {
        call();
      } catch (error) {
        thrown = error;
      }
      expect(thrown, name).toBeInstanceOf(WorkerStateError);
      expect((thrown as WorkerStateError).kind).toBe("locked");
      expect((thrown as WorkerStateError).operation).toBe(name);
    }
    expect(worker.history).toEqual([]);
    expect(worker.systemPrompt).toBeNull();
  });

  it("refuses to use a locked handle after it was unlocked", async () => {
    const worker = new Worker(new MockLlmClient(textResponse("Hello!")));
    const stale = worker.lock();
    stale.unlock();
    worker.lock();
    await expect(stale.run("Hi")).rejects.toMatchObject({ name: "WorkerStateError", kind: "not_locked" });
    expect(() => stale.unlock()).toThrow(WorkerStateError);
  });

  it("refuses a second run and an unlock while a run is in progress", async () => {
    const worker = new Worker(new MockLlmClient([mockDelay(30), ...textResponse("slow")]));
    const locked = worker.lock();
    const running = locked.run("Hi");
    expect(locked.isRunning).toBe(true);
    await expect(locked.run("again")).rejects.toMatchObject({ kind: "busy" });
    expect(() => locked.unlock()).toThrow(WorkerStateError);
    await expect(running).resolves.toBe("finished");
    expect(locked.isRunning).toBe(false);
  });

  it("restores state through the restore helpers", () => {
    const worker = new Worker(new MockLlmClient([]));
    worker.setHistory([userMessage("a"), assistantMessage("b")]);
    worker.setRequestCount(7);
    worker.setMaxRequests(10);
    worker.setLastRunInterrupted(true);
    worker.setRequestConfig({ temperature: 0.5 });
    expect(worker.history).toHaveLength(2);
    expect(worker.requestCount).toBe(7);
    expect(worker.maxRequests).toBe(10);
    expect(worker.lastRunInterrupted).toBe(true);
    expect(worker.requestConfig).toEqual({ temperature: 0.5 });
    worker.setMaxRequests(null);
    expect(worker.maxRequests).toBeNull();
    expect(() => worker.setRequestCount(-1)).toThrow(RangeError);
    expect(() => worker.setMaxRequests(0)).toThrow(RangeError);
  });
});
