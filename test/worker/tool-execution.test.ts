import { describe, expect, it } from "vitest";
import { toolInputDelta, toolUseStart } from "../../src/model/events.js";
import { type ToolResultItem, toolCall, toolResult } from "../../src/model/items.js";
import { ToolError } from "../../src/model/tools.js";
import { Worker } from "../../src/worker/index.js";
import { MockLlmClient } from "../support/mock-llm-client.js";
import { defineTool, recordingTool, sleep, textResponse, toolCallResponse } from "./scripts.js";

function resultsOf(history: readonly { type: string }[]): ToolResultItem[] {
  return history.filter((item): item is ToolResultItem => item.type === "tool_result");
}

describe("tool execution", () => {
  it("offers no unlisted tool to the model, yet runs it when the model calls it by name", async () => {
    const client = MockLlmClient.withResponses([
      toolCallResponse({ id: "c1", name: "hidden", args: "{}" }),
      textResponse("done"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(defineTool("listed", async () => "listed ran"));
    worker.registerTool(() => ({
      meta: { name: "hidden", description: "not offered", input_schema: { type: "object" }, unlisted: true },
      tool: { execute: async () => ({ output: "hidden says why", is_error: true }) },
    }));
    const locked = worker.lock();
    expect(locked.tools.map((tool) => tool.name)).toEqual(["listed"]);
    await locked.run("go");
    expect(client.requests[0]!.tools?.map((tool) => tool.name)).toEqual(["listed"]);
    expect(resultsOf(locked.history)).toEqual([toolResult("c1", "hidden says why", true)]);
  });

  it("runs the tool calls of one response in parallel", async () => {
    const calls: string[] = [];
    const worker = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse(
          { id: "c1", name: "slow_a", args: "{}" },
          { id: "c2", name: "slow_b", args: "{}" },
          { id: "c3", name: "slow_c", args: "{}" },
        ),
        textResponse("done"),
      ]),
    );
    for (const name of ["slow_a", "slow_b", "slow_c"]) {
      worker.registerTool(
        defineTool(name, async () => {
          calls.push(name);
          await sleep(100);
          return `${name} done`;
        }),
      );
    }
    const started = performance.now();
    await worker.lock().run("go");
    const elapsed = performance.now() - started;

    expect(calls.sort()).toEqual(["slow_a", "slow_b", "slow_c"]);
    // Sequential execution would take at least 300 ms.
    expect(elapsed).toBeLessThan(250);
  });

  it("commits results in call order even when the tools finish in reverse order", async () => {
    const finished: string[] = [];
    const worker = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse(
          { id: "c1", name: "wait", args: '{"ms":90}' },
          { id: "c2", name: "wait", args: '{"ms":50}' },
          { id: "c3", name: "wait", args: '{"ms":10}' },
        ),
        textResponse("done"),
      ]),
    );
    worker.registerTool(
      defineTool("wait", async (input, context) => {
        const { ms } = JSON.parse(input) as { ms: number };
        await sleep(ms);
        finished.push(context.call_id);
        return `waited ${ms}`;
      }),
    );
    const locked = worker.lock();
    await locked.run("go");

    expect(finished).toEqual(["c3", "c2", "c1"]);
    expect(resultsOf(locked.history)).toEqual([
      toolResult("c1", "waited 90"),
      toolResult("c2", "waited 50"),
      toolResult("c3", "waited 10"),
    ]);
  });

  it("keeps is_error on the result of a tool that throws or reports an error", async () => {
    const worker = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse(
          { id: "c1", name: "throws", args: "{}" },
          { id: "c2", name: "reports", args: "{}" },
          { id: "c3", name: "fine", args: "{}" },
        ),
        textResponse("done"),
      ]),
    );
    worker.registerTool(
      defineTool("throws", async () => {
        throw new ToolError("execution_failed", "disk on fire");
      }),
    );
    worker.registerTool(defineTool("reports", async () => ({ output: "no such file", is_error: true })));
    worker.registerTool(defineTool("fine", async () => ({ output: "all good" })));
    const locked = worker.lock();
    await expect(locked.run("go")).resolves.toBe("finished");

    expect(resultsOf(locked.history)).toEqual([
      { type: "tool_result", call_id: "c1", output: "disk on fire", is_error: true },
      { type: "tool_result", call_id: "c2", output: "no such file", is_error: true },
      { type: "tool_result", call_id: "c3", output: "all good" },
    ]);
  });

  it("does not run a tool whose arguments are not valid JSON but answers the call with an error", async () => {
    const tool = recordingTool("lookup");
    const client = MockLlmClient.withResponses([
      toolCallResponse(
        { id: "c1", name: "lookup", args: '{"q": "unterminated' },
        { id: "c2", name: "lookup", args: "[1]" },
      ),
      textResponse("sorry"),
    ]);
    const worker = new Worker(client);
    worker.registerTool(tool.definition);
    const locked = worker.lock();
    await locked.run("go");

    expect(tool.inputs).toEqual([]);
    expect(locked.history[1]).toEqual(toolCall("c1", "lookup", '{"q": "unterminated'));
    const [first, second] = resultsOf(locked.history);
    expect(first).toMatchObject({ call_id: "c1", is_error: true });
    expect(first?.output).toContain("not valid JSON");
    expect(second).toMatchObject({ call_id: "c2", is_error: true });
    expect(second?.output).toContain("not a JSON object");
  });

  it("turns empty tool arguments into an empty JSON object", async () => {
    const tool = recordingTool("now");
    const worker = new Worker(
      MockLlmClient.withResponses([
        [toolUseStart(0, "c1", "now"), toolInputDelta(0, "  ")],
        textResponse("ok"),
      ]),
    );
    worker.registerTool(tool.definition);
    const locked = worker.lock();
    await locked.run("time?");
    expect(locked.history[1]).toEqual(toolCall("c1", "now", "{}"));
    expect(tool.inputs).toEqual(["{}"]);
  });

  it("answers a call to an unknown tool with an error result", async () => {
    const locked = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse({ id: "c1", name: "nope", args: "{}" }),
        textResponse("ok"),
      ]),
    ).lock();
    await locked.run("go");
    expect(resultsOf(locked.history)).toEqual([toolResult("c1", "Tool not found: nope", true)]);
  });

  it("gives each tool its call id and a live abort signal", async () => {
    const seen: Array<{ id: string; aborted: boolean }> = [];
    const worker = new Worker(
      MockLlmClient.withResponses([
        toolCallResponse({ id: "call_x", name: "probe", args: "{}" }),
        textResponse("ok"),
      ]),
    );
    worker.registerTool(
      defineTool("probe", async (_input, context) => {
        seen.push({ id: context.call_id, aborted: context.signal.aborted });
        return "";
      }),
    );
    await worker.lock().run("go");
    expect(seen).toEqual([{ id: "call_x", aborted: false }]);
  });
});
