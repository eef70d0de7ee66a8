/**
 * A page attaching mid-answer: the replay window's events before the snapshot's cursor give the
 * drafts still open for the running turn, whole from their start; committed ones and other turns'
 * are left out. An interrupted turn's drafts stay, after the newest entry, marked interrupted.
 */
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/api/history.js";
import type { SessionEvent } from "../../src/api/session-events.js";
import { withReplayedDrafts } from "../../web/src/transcript/replayed-drafts.js";
import { applyBatch, fromSnapshot } from "../../web/src/transcript/transcript-state.js";
import { sessionSnapshot } from "../support/session-snapshot.js";

const delta = (type: "text" | "thinking", run: string, message: string, value: string) =>
  ({ type, sequence: 0, data: { run_id: run, message_id: message, text: value } }) as SessionEvent;

function committed(id: string, kind: HistoryEntry["kind"], turn: string): SessionEvent {
  const entry: HistoryEntry = {
    id,
    position: Number(id),
    kind,
    turn_id: turn,
    input_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    content: [{ kind: "text", text: id }],
    checkpoint_id: id,
    tool: null,
  };
  return { type: "message", sequence: 0, data: { entry } } as SessionEvent;
}

const running = (run: string) =>
  fromSnapshot(
    sessionSnapshot({
      status: { phase: "running", run_id: run, interrupt_requested: false, blocking_reason: null },
    }),
  );

describe("drafts replayed for a page that attached mid-answer", () => {
  it("opens the running turn's thinking and text whole, and leaves out what was committed or belongs to another turn", () => {
    const state = withReplayedDrafts(running("r2"), [
      delta("text", "r1", "r1:1", "an older turn"),
      delta("text", "r2", "r2:1", "first request, "),
      committed("4", "assistant", "r2"),
      delta("thinking", "r2", "r2:2:thinking", "I weigh "),
      delta("thinking", "r2", "r2:2:thinking", "it."),
      delta("text", "r2", "r2:2", "The answer "),
      delta("text", "r2", "r2:2", "so far"),
    ]);
    expect(state.drafts.map((draft) => [draft.kind, draft.text, draft.partial])).toEqual([
      ["thinking", "I weigh it.", false],
      ["text", "The answer so far", false],
    ]);
  });

  it("marks a draft partial when its first delta opens the window (its start may be older)", () => {
    const state = withReplayedDrafts(running("r1"), [delta("text", "r1", "r1:1", "middle of it")]);
    expect(state.drafts).toMatchObject([{ text: "middle of it", partial: true }]);
  });

  it("keeps an interrupted turn's streamed text after the newest entry, and drops a failed one's", () => {
    const start = running("r1");
    const event = (type: SessionEvent["type"], data: object) => ({ type, sequence: 0, data }) as SessionEvent;
    const ended = (run: string, state: string) =>
      event("turn_completed", { run_id: run, state, input_ids: [], outcome: "error" });
    const batch = (events: SessionEvent[]) => ({
      generation: "g",
      cursor: 1,
      events,
      reset: null,
      raw: events,
    });
    const after = applyBatch(
      start,
      batch([delta("text", "r1", "r1:1", "cut short"), ended("r1", "interrupted")]),
    )!;
    expect(after.drafts).toEqual([]);
    expect(after.interrupted).toMatchObject([{ draft: { text: "cut short" }, afterEntryId: null }]);
    const failed = applyBatch(after, batch([delta("text", "r2", "r2:1", "lost"), ended("r2", "failed")]))!;
    expect(failed.interrupted).toHaveLength(1);
  });
});
