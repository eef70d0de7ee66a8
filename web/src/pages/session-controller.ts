/**
 * One session followed by the page: the transcript state, the stream connection, and the
 * actions of the session page (send, interrupt, fork, page back, answer an approval, switch the
 * approval mode, repair). React
 * reads it through `useSyncExternalStore` (`view()` changes identity on every change).
 */
import { v7 as uuidv7 } from "uuid";
import type { ApprovalMode, ApprovalPolicyAnswer } from "../../../src/api/approvals.js";
import type { HistoryEntry, HistoryPage } from "../../../src/api/history.js";
import type { InputReceipt, InterruptAnswer } from "../../../src/api/inputs.js";
import type { RepairAnswer, SessionSnapshot } from "../../../src/api/session-snapshot.js";
import { decodeBatch, type StreamBatch } from "../../../src/client/stream-batch.js";
import type { ApprovalAnswer } from "../approvals/approval-state.js";
import { ApiError, call } from "../daemon-api.js";
import { type ConnectionState, EventStream } from "../stream/event-stream.js";
import { readReplayWindow } from "../stream/replay-window.js";
import { withReplayedDrafts } from "../transcript/replayed-drafts.js";
import {
  applyBatch,
  dropSent,
  mergeEntries,
  mergeOlderPage,
  missedEntriesToken,
  noteSent,
  type TranscriptState,
} from "../transcript/transcript-state.js";

/** History entries per page (the snapshot's tail, and each page read back). */
const pageSize = 100;

/** What the session page renders. */
export interface SessionView {
  transcript: TranscriptState | null;
  connection: ConnectionState;
  /** The last failed action or stream problem, for a person to read. */
  failure: string | null;
  loadingOlder: boolean;
}

/** The controller of one session page. */
export class SessionController {
  #view: SessionView = { transcript: null, connection: "connecting", failure: null, loadingOlder: false };
  readonly #listeners = new Set<() => void>();
  readonly #stream: EventStream;
  /** Frames held while the replay window before an initial mid-answer snapshot is read. */
  #held: StreamBatch[] | null = null;

  constructor(readonly sessionId: string) {
    this.#stream = new EventStream({
      path: `/sessions/${encodeURIComponent(sessionId)}?tail=${pageSize}`,
      onFrame: (data) => this.#frame(data),
      onState: (connection) => this.#update({ connection }),
    });
  }

  /** Start following the session. */
  start(): void {
    this.#stream.start();
  }

  /** Stop following it. */
  stop(): void {
    this.#stream.close();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  view = (): SessionView => this.#view;

  /** Send a message (a new input with a fresh id). */
  async send(text: string): Promise<void> {
    const inputId = uuidv7();
    this.#transcript((state) => noteSent(state, { inputId, text }));
    try {
      await call<InputReceipt>("PUT", `${this.#path()}/inputs/${inputId}`, { kind: "message", text });
    } catch (error) {
      this.#transcript((state) => dropSent(state, inputId));
      this.#fail(error);
    }
  }

  /** Stop the running turn and cancel queued inputs. */
  async interrupt(): Promise<void> {
    const state = this.#view.transcript;
    if (state === null) return;
    try {
      await call<InterruptAnswer>("POST", `${this.#path()}/interrupt`, {
        run_id: state.status.run_id,
        through_input_order: state.inputOrder,
      });
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Fork a new session at `entry`; resolves with its id (null when the fork failed). */
  async fork(entry: HistoryEntry): Promise<string | null> {
    if (entry.checkpoint_id === null) return null;
    const id = uuidv7();
    try {
      await call<SessionSnapshot>(
        "PUT",
        `/sessions/${id}`,
        { kind: "fork", source_session_id: this.sessionId, checkpoint_id: entry.checkpoint_id },
        { "if-none-match": "*" },
      );
      return id;
    } catch (error) {
      this.#fail(error);
      return null;
    }
  }

  /**
   * Leave log entries `from`..`to` out of the model's context from the next request on (the
   * way out of a history a provider keeps refusing); the stream brings the entry that says so.
   */
  async repair(from: number, to: number): Promise<void> {
    try {
      const answer = await call<RepairAnswer>("POST", `${this.#path()}/repair`, {
        from_position: from,
        to_position: to,
      });
      const range =
        answer.from_position === answer.to_position
          ? `Entry ${answer.from_position} is`
          : `Entries ${answer.from_position}–${answer.to_position} are`;
      this.#transcript((state) => ({
        ...state,
        notice: `${range} left out of the model's context from the next request on.`,
      }));
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Read the page of history before the oldest entry shown. */
  async loadOlder(): Promise<void> {
    const state = this.#view.transcript;
    if (state === null || state.older === null || this.#view.loadingOlder) return;
    this.#update({ loadingOlder: true });
    try {
      let page: HistoryPage;
      try {
        page = await call<HistoryPage>(
          "GET",
          `${this.#path()}/history?limit=${pageSize}&next=${encodeURIComponent(state.older)}`,
        );
      } catch (error) {
        // Tokens die with the daemon that signed them: go on from the oldest position shown.
        if (!(error instanceof ApiError) || (error.status !== 400 && error.status !== 410)) throw error;
        const oldest = state.entries[0]?.position ?? 0;
        page = await call<HistoryPage>(
          "GET",
          `${this.#path()}/history?limit=${pageSize}&before=${oldest + 1}`,
        );
      }
      this.#transcript((current) => mergeOlderPage(current, page));
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#update({ loadingOlder: false });
    }
  }

  /** Answer a pending approval. */
  async answerApproval(callId: string, answer: ApprovalAnswer): Promise<void> {
    try {
      await call<unknown>("POST", `${this.#path()}/approvals/${encodeURIComponent(callId)}`, answer);
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Switch the session's approval mode (`PUT …/approval-policy` with `{"mode"}`); shown once the daemon answers. */
  async setApprovalMode(mode: ApprovalMode): Promise<void> {
    try {
      const answer = await call<ApprovalPolicyAnswer>("PUT", `${this.#path()}/approval-policy`, { mode });
      this.#transcript((state) => ({
        ...state,
        summary: { ...state.summary, approval_mode: answer.approval_mode },
      }));
    } catch (error) {
      this.#fail(error);
    }
  }

  /** Forget the notice or failure shown. */
  dismiss(): void {
    this.#transcript((state) => ({ ...state, notice: null }));
    this.#update({ failure: null });
  }

  #frame(data: string): void {
    let batch: ReturnType<typeof decodeBatch>;
    try {
      batch = decodeBatch(data);
    } catch (error) {
      this.#fail(error);
      return;
    }
    if (this.#held !== null) {
      this.#held.push(batch);
      return;
    }
    const before = this.#view.transcript;
    if (before === null && batch.reset !== null && batch.reset.snapshot.status.phase !== "idle") {
      this.#joinMidAnswer(batch);
      return;
    }
    this.#apply(batch);
  }

  /**
   * The first frame finds a turn running: its answer so far is in no snapshot. Show the snapshot,
   * hold the next frames, read the replay window up to the snapshot's cursor for the drafts still
   * open, then apply the held frames: the answer shows whole, thinking included.
   */
  #joinMidAnswer(batch: StreamBatch): void {
    this.#update({ transcript: applyBatch(null, { ...batch, events: [] }) });
    this.#held = [{ ...batch, reset: null }];
    void readReplayWindow(`${this.#path()}?tail=0`, {
      generation: batch.generation,
      sequence: batch.cursor,
    }).then((events) => {
      if (events !== null) this.#transcript((state) => withReplayedDrafts(state, events));
      const held = this.#held ?? [];
      this.#held = null;
      for (const frame of held) this.#apply(frame);
    });
  }

  #apply(batch: StreamBatch): void {
    const before = this.#view.transcript;
    const missed =
      before !== null && batch.reset !== null && batch.reset.reason !== "initial"
        ? missedEntriesToken(before, batch.reset.snapshot)
        : null;
    this.#update({ transcript: applyBatch(before, batch) });
    if (missed !== null) void this.#fillGap(missed);
  }

  /** After a reset: page back from the snapshot's tail until an entry shown before is found. */
  async #fillGap(token: string): Promise<void> {
    const found: HistoryEntry[] = [];
    try {
      for (let next: string | null = token, pages = 0; next !== null && pages < 50; pages++) {
        const page: HistoryPage = await call<HistoryPage>(
          "GET",
          `${this.#path()}/history?limit=${pageSize}&next=${encodeURIComponent(next)}`,
        );
        found.push(...page.items);
        const known = this.#view.transcript?.ids;
        if (known === undefined || page.items.some((entry) => known.has(entry.id))) break;
        next = page.older;
      }
    } catch (error) {
      this.#fail(error);
    }
    this.#transcript((state) => mergeEntries(state, found));
  }

  #path(): string {
    return `/sessions/${encodeURIComponent(this.sessionId)}`;
  }

  #transcript(change: (state: TranscriptState) => TranscriptState): void {
    const state = this.#view.transcript;
    if (state !== null) this.#update({ transcript: change(state) });
  }

  #fail(error: unknown): void {
    this.#update({ failure: error instanceof Error ? error.message : String(error) });
  }

  #update(change: Partial<SessionView>): void {
    this.#view = { ...this.#view, ...change };
    for (const listener of this.#listeners) listener();
  }
}
