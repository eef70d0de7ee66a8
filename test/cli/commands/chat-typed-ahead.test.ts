import { describe, expect, it } from "vitest";
import { queueNotes } from "../../../src/cli/commands/chat-typed-ahead.js";

const receipt = Promise.resolve(null);

describe("the notes of prompts typed during a turn", () => {
  it("lists a sent message and a waiting command, the command saying when it runs", () => {
    expect(
      queueNotes([
        { kind: "sent", text: "  and then the tests ", inputId: "i", receipt },
        { kind: "command", text: "/status" },
      ]),
    ).toEqual(["queued: and then the tests", "queued: /status (runs when the turn ends)"]);
  });

  it("says a queued /exit leaves when the turn ends", () => {
    expect(queueNotes([{ kind: "command", text: "/exit" }])).toEqual([
      "exits when the turn ends (Ctrl-C interrupts it)",
    ]);
  });

  it("shows only the first line of a long prompt, shortened to 60 columns", () => {
    const long = "x".repeat(70);
    expect(queueNotes([{ kind: "sent", text: `${long}\nsecond line`, inputId: "i", receipt }])).toEqual([
      `queued: ${"x".repeat(59)}… …`,
    ]);
  });
});
