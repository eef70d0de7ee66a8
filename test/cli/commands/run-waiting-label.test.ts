import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/api/session-events.js";
import { waitingLabel } from "../../../src/cli/commands/run-waiting-label.js";

function tool(result: string | null): SessionEvent {
  return {
    type: "tool",
    sequence: 1,
    data: { tool_call_id: "call_1", name: "run_command", arguments: "{}", result, is_error: false },
  };
}

describe("the waiting line's label in skein run", () => {
  it("names a tool while it runs, and the model once it has finished", () => {
    expect(waitingLabel(tool(null))).toBe("running run_command");
    expect(waitingLabel(tool("ok"))).toBe("waiting for the model");
  });

  it("waits for the model again after a turn ends", () => {
    expect(
      waitingLabel({
        type: "turn_completed",
        sequence: 1,
        data: { run_id: "r", state: "completed", input_ids: [], outcome: "finished" },
      }),
    ).toBe("waiting for the model");
  });

  it("keeps the label it has for events that say nothing about what is awaited", () => {
    expect(
      waitingLabel({ type: "text", sequence: 1, data: { run_id: "r", message_id: "m", text: "x" } }),
    ).toBe(undefined);
  });
});
