/**
 * The port's composite writes as SQL programs, shared by both backends: the row writes that
 * commit with a log append (`RowWrites`, which may admit the input whose turn starts in the
 * same append), an admission that moves the activity time, a session's first rows and its
 * removal.
 *
 * Boundary rule: composition only; each table's statements live in its table module.
 */
import type { SessionPreview } from "../../api/session-snapshot.js";
import type { LogEntry } from "../../log/entries.js";
import { InputNotFreshError } from "../errors.js";
import { recordUsageProgram } from "./budget-usage-table.js";
import {
  type Admission,
  admitInputProgram,
  markInputsCommittedProgram,
  type NewInput,
} from "./inputs-table.js";
import { insertNotificationProgram } from "./outbox-table.js";
import { forgetRejectionProgram } from "./rejected-creations-table.js";
import type { RowWrites } from "./session-storage.js";
import {
  deleteSessionRowsProgram,
  insertSessionProgram,
  type NewSession,
  type SessionRow,
  setPreviewProgram,
  touchActivityProgram,
  updateSessionRowProgram,
} from "./sessions-table.js";
import type { SqlProgram } from "./sql-program.js";
import { endTurnProgram, markInterruptRequestedProgram, startTurnProgram } from "./turns-table.js";

/** Apply `writes` (inside the append's transaction or savepoint); the admission first. */
export function* rowWritesProgram(sessionId: string, writes: RowWrites): SqlProgram<void> {
  if (writes.admission !== undefined) {
    yield* admitFreshInputProgram(writes.admission.input, writes.admission.order);
  }
  // One activity update: the latest of the admission's and the append's times.
  const activityAt = latest(writes.activityAt, writes.admission?.input.acceptedAt);
  if (writes.startTurn !== undefined) {
    yield* startTurnProgram({ session: sessionId, ...writes.startTurn });
  }
  if (writes.committedInputs !== undefined) {
    yield* markInputsCommittedProgram(writes.committedInputs.turnId, writes.committedInputs.inputs);
  }
  if (writes.interruptRequested !== undefined) {
    yield* markInterruptRequestedProgram(writes.interruptRequested.id, writes.interruptRequested.at);
  }
  if (writes.endTurn !== undefined) {
    const { id, ...end } = writes.endTurn;
    yield* endTurnProgram(id, end);
  }
  for (const notification of writes.notifications ?? []) yield* insertNotificationProgram(notification);
  // The session's row changes in one statement, whatever of it this commit changes.
  yield* updateSessionRowProgram(sessionId, {
    ...(writes.usage !== undefined && Object.keys(writes.usage).length > 0 ? { usage: writes.usage } : {}),
    ...(writes.preview === undefined ? {} : { preview: writes.preview }),
    ...(activityAt === undefined ? {} : { activityAt }),
    ...(writes.provider === undefined ? {} : { provider: writes.provider }),
  });
}

/** What an append of `entries` writes besides them: `writes`, and the usage the entries carry. */
export function* appendRowsProgram(
  sessionId: string,
  writes: RowWrites,
  entries: readonly LogEntry[],
): SqlProgram<void> {
  yield* rowWritesProgram(sessionId, writes);
  yield* recordUsageProgram(sessionId, entries);
}

/** Admit an input; a new one moves the session's activity time to its acceptance. */
export function* admitAndTouchProgram(input: NewInput): SqlProgram<Admission> {
  const admitted = yield* admitInputProgram(input);
  if (admitted.created) yield* touchActivityProgram(input.session, input.acceptedAt);
  return admitted;
}

function latest(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  return b === undefined ? a : Math.max(a, b);
}

/**
 * Admit an input that must be new, get acceptance order `order` and find no other input
 * waiting; otherwise throw `InputNotFreshError`, which rolls back the caller's whole write (its
 * log append included). The caller moves the activity time.
 */
function* admitFreshInputProgram(input: NewInput, order: number): SqlProgram<void> {
  const admitted = yield* admitInputProgram(input);
  if (!admitted.created) throw new InputNotFreshError(input.session, input.id, "it was admitted before");
  if (admitted.waitingBefore > 0) {
    // A turn takes the waiting inputs in order: this one may not overtake them.
    throw new InputNotFreshError(
      input.session,
      input.id,
      `${admitted.waitingBefore} input(s) wait before it`,
    );
  }
  if (admitted.receipt.acceptance_order !== order) {
    throw new InputNotFreshError(
      input.session,
      input.id,
      `its acceptance order would be ${admitted.receipt.acceptance_order}, not ${order}`,
    );
  }
}

/** A session's row, before its first log entries (the caller appends those in between); the row as stored. */
export function* createSessionRowProgram(row: NewSession): SqlProgram<SessionRow> {
  return yield* insertSessionProgram(row);
}

/** What follows a new session's first entries: its preview, and forgetting an earlier refusal of its id. */
export function* finishSessionCreationProgram(sessionId: string, preview: SessionPreview): SqlProgram<void> {
  yield* setPreviewProgram(sessionId, preview);
  yield* forgetRejectionProgram(sessionId);
}

/**
 * Every row about the session (its log is the log store's to delete, in the same transaction);
 * `tables`: the daemon's tables with a `session` column, when the caller keeps that list.
 */
export function* deleteSessionProgram(sessionId: string, tables?: readonly string[]): SqlProgram<void> {
  yield* deleteSessionRowsProgram(sessionId, tables);
}
