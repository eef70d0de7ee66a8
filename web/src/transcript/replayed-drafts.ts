/**
 * A page that attached mid-answer: the snapshot holds what was committed, the stream's replay
 * window the deltas before the snapshot's cursor. Folding those deltas (and the entries and turn
 * ends among them, which close drafts) gives the drafts still open at the cursor, whole from their
 * start when the window reaches it, thinking included.
 */
import type { SessionEvent } from "../../../src/api/session-events.js";
import type { Draft, TranscriptState } from "./transcript-state.js";

/**
 * `state` (fresh from a snapshot, before any later event) with the drafts that `events` (the
 * replay window up to the snapshot's cursor) leave open for the running turn. A draft whose first
 * delta opens the window may have started before it: it is marked partial.
 */
export function withReplayedDrafts(state: TranscriptState, events: readonly SessionEvent[]): TranscriptState {
  let drafts: Draft[] = [];
  const first = events[0];
  const cutMessage = first?.type === "text" || first?.type === "thinking" ? first.data.message_id : null;
  for (const event of events) {
    switch (event.type) {
      case "text":
      case "thinking": {
        const { run_id: turnId, message_id: messageId, text } = event.data;
        const open = drafts.find((draft) => draft.messageId === messageId);
        drafts = open
          ? drafts.map((draft) => (draft === open ? { ...draft, text: draft.text + text } : draft))
          : [...drafts, { messageId, turnId, kind: event.type, text, partial: messageId === cutMessage }];
        break;
      }
      case "message": {
        const { entry } = event.data;
        if (entry.kind === "assistant" || entry.kind === "thinking" || entry.kind === "tool_call") {
          drafts = drafts.filter((draft) => draft.turnId !== entry.turn_id);
        }
        break;
      }
      case "turn_completed":
        drafts = drafts.filter((draft) => draft.turnId !== event.data.run_id);
        break;
      default:
        // Everything else is in the snapshot already.
        break;
    }
  }
  const running = state.status.run_id;
  const open = drafts.filter((draft) => draft.turnId === running && draft.text !== "");
  if (open.length === 0) return state;
  return { ...state, drafts: [...open, ...state.drafts] };
}
