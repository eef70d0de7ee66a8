/**
 * A new session's first input, sent with its creation (`input` of `PUT /sessions/{id}`): what the
 * creation's transaction writes for it besides the session, and what the new actor then tells.
 * The input is admitted and its turn started in that transaction (one commit for all three); the
 * new actor publishes what a commit of the admission and the start would have (the pending
 * receipt, the start's entries, the running receipt and status) and runs the turn,
 * and the creation's snapshot and cursor show the session as created, before all that, so a
 * client that follows the stream from that cursor sees the turn whole. On a cluster the same
 * commit takes the session's lease, and the actor is built under its epoch (fenced as any).
 * Where the actor is loaded instead (a drain) only the admission is written, and the load starts
 * the turn from the queue as for any waiting input.
 */
import type { InputIntent, InputReceipt } from "../../api/inputs.js";
import type { LogEntry } from "../../log/entries.js";
import { timeOrderedId } from "../../model/time-ordered-id.js";
import { previewOf } from "../history/preview.js";
import { freshAdmission, type InputQueue, newInput } from "../session/input-queue.js";
import type { SessionLogWriter } from "../session/session-log-writer.js";
import type { InputSource } from "../storage/inputs-table.js";
import type { CreatedSession, RowWrites } from "../storage/session-storage.js";
import type { Tracing } from "../telemetry/tracing.js";
import type { TurnTrace } from "../telemetry/turn-trace.js";
import type { TurnScheduler } from "../turn/turn-scheduler.js";
import { receiptsOf, type StartedTurn, turnStartEntries, turnStartWrites } from "../turn/turn-start.js";

/** A new session's first input as its creation asks for it (checked by the route). */
export interface FirstInputRequest {
  id: string;
  intent: InputIntent;
  source: InputSource;
}

/** The first turn a session's creation started, as its new actor runs and announces it. */
export interface CreatedTurn {
  started: StartedTurn;
  /** Its trace (its start's entries carry its ids), when the daemon exports traces. */
  trace: TurnTrace | undefined;
  /** The input's receipt as admitted (pending), announced before the turn's start. */
  admitted: InputReceipt;
  /** How many of the created log's entries are the session's own (its turn's start follows them). */
  sessionEntries: number;
}

/** What a creation writes for its first input, and what it answers about it. */
export interface FirstInputPlan {
  /** The entries of its turn's start, after the session's first ones (none: admitted only). */
  entries: LogEntry[];
  writes: RowWrites;
  /** The turn its creation starts (null: admitted only, a load starts it). */
  turn: CreatedTurn | null;
  /** The input's receipt once the creation is durable (its turn running, when started). */
  receipt: InputReceipt;
}

/** A new session has no approval that waits and no open call: its first turn closes nothing. */
const freshGate = { waiting: false, closingEntries: () => [] };

/**
 * The writes of `first`, the first input of session `sessionId` created at `now` (acceptance
 * order 1) after `sessionEntries` entries of its own. `startTurn`: its turn starts in the
 * creation's commit (traced with `tracing`, when given); else it is admitted only.
 */
function planFirstInput(
  sessionId: string,
  first: FirstInputRequest,
  now: number,
  sessionEntries: number,
  startTurn: boolean,
  tracing?: Pick<Tracing, "turn">,
): FirstInputPlan {
  const admission = freshAdmission(newInput(sessionId, first.id, first.intent, first.source, now), 1);
  if (!startTurn) {
    return { entries: [], writes: { admission: admission.writes }, turn: null, receipt: admission.receipt };
  }
  const turnId = timeOrderedId();
  // Traced before its start commits, so the start's entries carry the trace too (as Turn.begin does).
  const trace = tracing?.turn(sessionId, turnId, [first.id]);
  const entries = turnStartEntries({
    turnId,
    now,
    pending: [admission.row],
    gate: freshGate,
    history: [],
  }).map((entry): LogEntry => (trace === undefined ? entry : { ...entry, ...trace.ids }));
  const started: StartedTurn = {
    turnId,
    inputIds: [first.id],
    entries,
    startedAt: now,
    // The input's entry is the start's last (nothing is closed before it in a new session).
    delivered: [{ row: admission.row, transcriptPosition: sessionEntries + entries.length - 1 }],
    firstPosition: sessionEntries,
  };
  const [running] = receiptsOf(started, "running", null);
  return {
    entries,
    writes: { admission: admission.writes, ...turnStartWrites(started) },
    turn: { started, trace, admitted: admission.receipt, sessionEntries },
    receipt: running ?? admission.receipt,
  };
}

/**
 * The session as its creation's snapshot shows it when the creation also started its first
 * turn: as created, before the input's admission and the turn's start (the stream tells those).
 */
function beforeFirstInput(created: CreatedSession, sessionEntries: number): CreatedSession {
  const entries = created.restored.entries.slice(0, sessionEntries);
  return {
    ...created,
    row: { ...created.row, preview: previewOf(entries), inputOrder: 0 },
    restored: { ...created.restored, entries },
  };
}

/**
 * Run `create` with the creation's `entries` and `first`'s plan; a turn the plan started gets its
 * trace ended when the creation fails (nothing of it was written, or a load recovers it under a
 * trace of its own).
 */
export async function withFirstInput<T>(
  sessionId: string,
  entries: readonly LogEntry[],
  first: FirstInputRequest,
  plan: { now: number; startTurn: boolean; tracing: Pick<Tracing, "turn"> | undefined },
  create: (entries: readonly LogEntry[], plan: FirstInputPlan) => Promise<T>,
): Promise<T> {
  const planned = planFirstInput(sessionId, first, plan.now, entries.length, plan.startTurn, plan.tracing);
  try {
    return await create([...entries, ...planned.entries], planned);
  } catch (error) {
    planned.turn?.trace?.end("failed", "error", "session_not_created", null);
    throw error;
  }
}

/**
 * Tell what a commit of `turn`'s admission and start would have (the receipt, the entries after
 * the session's own, `committed`) and run the turn; the snapshot to show, as created before them.
 */
export function runCreatedTurn(
  parts: {
    inputs: Pick<InputQueue, "announce">;
    log: Pick<SessionLogWriter, "announceCreated">;
    turns: Pick<TurnScheduler, "runCommitted">;
  },
  created: CreatedSession,
  turn: CreatedTurn,
): CreatedSession {
  parts.inputs.announce(turn.admitted);
  parts.log.announceCreated(created.restored.entries.slice(turn.sessionEntries));
  parts.turns.runCommitted(turn.started, created.row, turn.trace);
  return beforeFirstInput(created, turn.sessionEntries);
}
