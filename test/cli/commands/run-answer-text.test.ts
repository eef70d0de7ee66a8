import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../../src/api/session-events.js";
import { AnswerText } from "../../../src/cli/commands/run-answer-text.js";

function text(run: string, message: string, chunk: string): SessionEvent {
  return { type: "text", sequence: 1, data: { run_id: run, message_id: message, text: chunk } };
}

const ours = (turnId: string | null): boolean => turnId === "run-1";

describe("the answer text of skein run", () => {
  it("is empty before any message", () => {
    expect(new AnswerText().last()).toBe("");
  });

  it("is the newest message of our runs, its deltas joined", () => {
    const answer = new AnswerText();
    answer.observe(text("run-1", "run-1:0", "Looking "), ours);
    answer.observe(text("run-1", "run-1:0", "at it."), ours);
    expect(answer.last()).toBe("Looking at it.");
    answer.observe(text("run-1", "run-1:1", "Done."), ours);
    expect(answer.last()).toBe("Done.");
  });

  it("ignores the text of other runs and other events", () => {
    const answer = new AnswerText();
    answer.observe(text("run-1", "run-1:0", "Ours."), ours);
    answer.observe(text("run-2", "run-2:0", "Theirs."), ours);
    answer.observe(
      { type: "thinking", sequence: 2, data: { run_id: "run-1", message_id: "t", text: "hm" } },
      ours,
    );
    expect(answer.last()).toBe("Ours.");
  });
});
