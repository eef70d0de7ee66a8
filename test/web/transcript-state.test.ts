/**
 * The page's transcript reducer: streamed drafts live until their entry commits or their turn
 * ends; entries are kept once, in log order, whatever order they arrive in; a reset merges the
 * snapshot, drops drafts and says so; approvals follow their events.
 */
import { describe, expect, it } from "vitest";
import type { HistoryEntry } from "../../src/api/history.js";
import type { SessionEvent } from "../../src/api/session-events.js";
import type { SessionSnapshot } from "../../src/api/session-snapshot.js";
import type { StreamBatch } from "../../src/client/stream-batch.js";
import { applyApprovalEvent } from "../../web/src/approvals/approval-state.js";
import {
  applyBatch,
  fromSnapshot,
  mergeOlderPage,
  missedEntriesToken,
  type TranscriptState,
} from "../../web/src/transcript/transcript-state.js";
import { allowedAnswer, waitingCall } from "../support/approval-records.js";
import { sessionSnapshot } from "../support/session-snapshot.js";

function entry(id: string, kind: HistoryEntry["kind"], turn: string | null, textValue = id): HistoryEntry {
  return {
    id,
    position: Number(id.split("-")[0]),
    kind,
    turn_id: turn,
    input_id: null,
    created_at: "2026-01-01T00:00:00.000Z",
    content: [{ kind: "text", text: textValue }],
    checkpoint_id: id,
    tool: null,
  };
}

function snapshot(items: HistoryEntry[], older: string | null = null): SessionSnapshot {
  return sessionSnapshot({
    preview: { text: "", transcript_count: items.length, truncated: false },
    history: { items, older, newer: null, high_water: items.length, byte_limited: false },
  });
}

let sequence = 0;
function batch(
  events: Array<Omit<SessionEvent, "sequence">>,
  reset: StreamBatch["reset"] = null,
): StreamBatch {
  const full = events.map((event) => ({ ...event, sequence: ++sequence }) as SessionEvent);
  return { generation: "g", cursor: sequence, events: full, reset, raw: full };
}

const text = (run: string, n: number, value: string) =>
  ({ type: "text", data: { run_id: run, message_id: `${run}:${n}`, text: value } }) as const;

describe("the transcript reducer", () => {
  it("shows streamed text as a draft until the entry that commits it arrives, then only the entry", () => {
    let state: TranscriptState | null = fromSnapshot(snapshot([entry("0", "user", "r1")]));
    state = applyBatch(state, batch([text("r1", 1, "Hel"), text("r1", 1, "lo")]));
    expect(state!.drafts.map((draft) => draft.text)).toEqual(["Hello"]);
    state = applyBatch(
      state,
      batch([{ type: "message", data: { entry: entry("1", "assistant", "r1", "Hello") } }]),
    );
    expect(state!.drafts).toEqual([]);
    expect(state!.entries.map((item) => item.id)).toEqual(["0", "1"]);
  });

  it("drops a turn's uncommitted draft when the turn ends", () => {
    let state = applyBatch(fromSnapshot(snapshot([])), batch([text("r1", 1, "partial")]));
    state = applyBatch(
      state,
      batch([
        {
          type: "turn_completed",
          data: { run_id: "r1", state: "interrupted", input_ids: [], outcome: "error" },
        },
      ]),
    );
    expect(state!.drafts).toEqual([]);
    expect(state!.notice).toContain("interrupted");
  });

  it("says clearly when a budget stopped a turn, and nothing when a turn simply answered", () => {
    const ended = (outcome: "finished" | "budget_exhausted") =>
      applyBatch(
        fromSnapshot(snapshot([])),
        batch([
          { type: "turn_completed", data: { run_id: "r1", state: "completed", input_ids: [], outcome } },
        ]),
      );
    expect(ended("budget_exhausted")!.notice).toMatch(
      /^Budget exhausted: the turn stopped before its next model request/,
    );
    expect(ended("finished")!.notice).toBeNull();
  });

  it("says what a refused request was sent again without, and how a plain retry waits", () => {
    let state = applyBatch(
      fromSnapshot(snapshot([])),
      batch([{ type: "retry", data: { run_id: "r1", attempt: 1, reason: "HTTP 503", delay_ms: 500 } }]),
    );
    expect(state!.notice).toBe("Retrying the model request (attempt 1): HTTP 503");
    state = applyBatch(
      state,
      batch([
        {
          type: "retry",
          data: {
            run_id: "r1",
            attempt: 1,
            reason: "HTTP 400: flagged (sent again without …)",
            delay_ms: 0,
            adjusted: ['messages[3]: the user message "POISON"'],
          },
        },
      ]),
    );
    expect(state!.notice).toBe(
      'The provider refused the request; sent it again without messages[3]: the user message "POISON".',
    );
  });

  it("keeps each entry once and in log order, however often and in whatever order it arrives", () => {
    let state: TranscriptState | null = fromSnapshot(snapshot([entry("5", "user", null)], "token"));
    const second = entry("6-1", "tool_call", "r");
    const first = entry("6-0", "assistant", "r");
    state = applyBatch(
      state,
      batch([
        { type: "message", data: { entry: second } },
        { type: "message", data: { entry: first } },
      ]),
    );
    state = applyBatch(state, batch([{ type: "message", data: { entry: first } }]));
    state = mergeOlderPage(state!, {
      items: [entry("3", "user", null), entry("5", "user", null)],
      older: null,
      newer: "n",
      high_water: 6,
      byte_limited: false,
    });
    expect(state.entries.map((item) => item.id)).toEqual(["3", "5", "6-0", "6-1"]);
    expect(state.older).toBeNull();
  });

  it("after a reset merges the snapshot, drops drafts with a notice, and asks for the gap to be paged in", () => {
    let state = applyBatch(
      fromSnapshot(snapshot([entry("0", "user", "r1")])),
      batch([text("r1", 1, "unsaved")]),
    );
    const restarted = snapshot([entry("7", "note", null), entry("8", "assistant", "r2")], "older-token");
    expect(missedEntriesToken(state!, restarted)).toBe("older-token");
    state = applyBatch(state, batch([], { reason: "generation_changed", snapshot: restarted }));
    expect(state!.drafts).toEqual([]);
    expect(state!.entries.map((item) => item.id)).toEqual(["0", "7", "8"]);
    expect(state!.notice).toMatch(/restarted.*never saved was dropped/);
    expect(missedEntriesToken(state!, restarted)).toBeNull();
    // Deltas of a message whose start was lost restart as partial.
    const replay = snapshot([entry("0", "user", "r1")]);
    state = applyBatch(fromSnapshot(replay), batch([text("r3", 1, "a")]));
    state = applyBatch(
      state,
      batch([text("r3", 1, "b")], { reason: "replay_unavailable", snapshot: replay }),
    );
    expect(state!.drafts).toEqual([
      { messageId: "r3:1", turnId: "r3", kind: "text", text: "b", partial: true },
    ]);
  });

  it("lists an approval from its request until it is resolved, once", () => {
    const requested = {
      type: "approval_requested" as const,
      sequence: 1,
      data: waitingCall("c1", { tool: "run_command", run_id: "r1" }),
    };
    let pending = applyApprovalEvent([], requested);
    pending = applyApprovalEvent(pending, requested);
    expect(pending.map((approval) => approval.call_id)).toEqual(["c1"]);
    const answer = {
      ...allowedAnswer("c1", { answered_by: "bootstrap", answered_from: "127.0.0.1" }),
      run_id: "r1",
    };
    // A `task` child's answer of its own c1, relayed here, leaves this session's c1 waiting.
    const relayed = {
      type: "approval_resolved" as const,
      sequence: 2,
      data: { ...answer, session_id: "child" },
    };
    expect(applyApprovalEvent(pending, relayed)).toEqual(pending);
    pending = applyApprovalEvent(pending, { type: "approval_resolved", sequence: 2, data: answer });
    expect(pending).toEqual([]);
  });
});
