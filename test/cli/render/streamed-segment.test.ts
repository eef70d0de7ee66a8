import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../../src/api/history.js";
import { dropsUnsavedText, type StreamedSegment } from "../../../src/cli/render/streamed-segment.js";

function segment(overrides: Partial<StreamedSegment> = {}): StreamedSegment {
  return {
    kind: "text",
    turnId: "run-1",
    messageId: "run-1:0",
    shown: "Half an answ",
    held: false,
    ...overrides,
  };
}

/** A committed entry of run-1 with the answer the segment started to show. */
const answer: HistoryEntry = {
  id: "2",
  position: 2,
  kind: "assistant",
  turn_id: "run-1",
  input_id: null,
  created_at: "2026-01-01T00:00:00.000Z",
  content: [{ kind: "text", text: "Half an answer." }],
  checkpoint_id: "2",
  tool: null,
};

function entry(id: string, kind: HistoryEntry["kind"]): HistoryEntry {
  return { ...answer, id, kind };
}

const unknown = (): boolean => false;

describe("whether a reset drops streamed text that was never saved", () => {
  it("drops the text of a run that is over when the reset brings no entry for it", () => {
    expect(dropsUnsavedText([segment()], [], unknown, null)).toBe(true);
  });

  it("drops nothing when the reset brings the run's answer", () => {
    expect(dropsUnsavedText([segment()], [entry("2", "assistant")], unknown, null)).toBe(false);
    expect(dropsUnsavedText([segment()], [entry("2", "thinking")], unknown, null)).toBe(false);
  });

  it("still drops it when the run's only entry was shown before, or is not an answer", () => {
    expect(dropsUnsavedText([segment()], [entry("2", "assistant")], (id) => id === "2", null)).toBe(true);
    expect(dropsUnsavedText([segment()], [entry("2", "note")], unknown, null)).toBe(true);
  });

  it("drops nothing of the running run, of held text, or of a segment that showed nothing", () => {
    expect(dropsUnsavedText([segment()], [], unknown, "run-1")).toBe(false);
    expect(dropsUnsavedText([segment({ held: true })], [], unknown, null)).toBe(false);
    expect(dropsUnsavedText([segment({ shown: "" })], [], unknown, null)).toBe(false);
  });
});
