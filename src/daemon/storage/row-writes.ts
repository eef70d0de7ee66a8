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
import { SessionNotFoundError } from "../../log/errors.js";
import { InputNotFreshError } from "../errors.js";
import { recordUsageProgram } from "./budget-usage-table.js";
import {
  admitInputProgram,
  bumpInputOrderProgram,
  type Delivery,
  insertFreshInputProgram,
} from "./input-admission.js";
import { type Admission, markInputsCommittedProgram, type NewInput } from "./inputs-table.js";
import { insertNotificationProgram } from "./outbox-table.js";
import { forgetRejectionProgram } from "./rejected-creations-table.js";
import { type SessionRowChanges, updateSessionRowProgram } from "./session-row-update.js";
import type { RowWrites } from "./session-storage.js";
import {
  deleteSessionRowsProgram,
  insertSessionProgram,
  type NewSession,
  type SessionRow,
  touchActivityProgram,
} from "./sessions-table.js";
import type { SqlProgram } from "./sql-program.js";
import { endTurnProgram, markInterruptRequestedProgram, startTurnProgram } from "./turns-table.js";

/** Apply `writes` (inside the append's transaction or savepoint); the admission first. */
export function* rowWritesProgram(sessionId: string, writes: RowWrites): SqlProgram<void> {
  // One activity update: the latest of the admission's and the append's times.
  const activityAt = latest(writes.activityAt, writes.admission?.input.acceptedAt);
  // The session's row changes in one statement, whatever of it this commit changes.
  const rowChanges: SessionRowChanges = {
    ...(writes.usage !== undefined && Object.keys(writes.usage).length > 0 ? { usage: writes.usage } : {}),
    ...(writes.preview === undefined ? {} : { preview: writes.preview }),
    ...(activityAt === undefined ? {} : { activityAt }),
    ...(writes.provider === undefined ? {} : { provider: writes.provider }),
    ...(writes.ownBudget === undefined ? {} : { ownBudget: writes.ownBudget }),
  };
  // An input admitted and delivered by the turn starting in the same write is inserted delivered.
  let deliveredNow: string | null = null;
  if (writes.admission !== undefined) {
    const { input, order } = writes.admission;
    const commit = writes.committedInputs;
    const delivered = commit?.inputs.find((each) => each.id === input.id);
    yield* admitFreshInputProgram(
      input,
      order,
      rowChanges,
      delivered === undefined || commit === undefined
        ? null
        : { turnId: commit.turnId, transcriptPosition: delivered.transcriptPosition },
    );
    if (delivered !== undefined) deliveredNow = input.id;
  }
  if (writes.startTurn !== undefined) {
    yield* startTurnProgram({ session: sessionId, ...writes.startTurn });
  }
  if (writes.committedInputs !== undefined) {
    const { turnId, inputs } = writes.committedInputs;
    const waiting = deliveredNow === null ? inputs : inputs.filter((each) => each.id !== deliveredNow);
    if (waiting.length > 0) yield* markInputsCommittedProgram(turnId, waiting);
  }
  if (writes.interruptRequested !== undefined) {
    yield* markInterruptRequestedProgram(writes.interruptRequested.id, writes.interruptRequested.at);
  }
  if (writes.endTurn !== undefined) {
    const { id, ...end } = writes.endTurn;
    yield* endTurnProgram(id, end);
  }
  for (const notification of writes.notifications ?? []) yield* insertNotificationProgram(notification);
  // An admission changed the row already, in the UPDATE that took its order.
  if (writes.admission === undefined) yield* updateSessionRowProgram(sessionId, rowChanges);
}

/**
 * What an append of `entries` writes besides them: `writes`, the usage the entries carry, and
 * the session's own budget when one of them changes it.
 */
export function* appendRowsProgram(
  sessionId: string,
  writes: RowWrites,
  entries: readonly LogEntry[],
): SqlProgram<void> {
  const budget = entries.findLast((entry) => entry.kind === "budget_changed");
  yield* rowWritesProgram(
    sessionId,
    budget?.kind === "budget_changed" ? { ...writes, ownBudget: budget.budget } : writes,
  );
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
 * log append included). Three statements at most: the UPDATE that takes the order also applies
 * `rowChanges` (the session's row changes of the whole write) and counts the waiting inputs;
 * the INSERT stores the input already `delivered` when a turn of the same write delivers it,
 * and a taken id fails it (admitted before).
 */
function* admitFreshInputProgram(
  input: NewInput,
  order: number,
  rowChanges: SessionRowChanges,
  delivered: Delivery | null,
): SqlProgram<void> {
  const taken = yield* bumpInputOrderProgram(input.session, rowChanges);
  if (taken === undefined) throw new SessionNotFoundError(input.session);
  if (taken.waiting > 0) {
    // A turn takes the waiting inputs in order: this one may not overtake them.
    throw new InputNotFreshError(input.session, input.id, `${taken.waiting} input(s) wait before it`);
  }
  if (taken.order !== order) {
    throw new InputNotFreshError(
      input.session,
      input.id,
      `its acceptance order would be ${taken.order}, not ${order}`,
    );
  }
  if (!(yield* insertFreshInputProgram(input, order, delivered))) {
    throw new InputNotFreshError(input.session, input.id, "it was admitted before");
  }
}

/**
 * A session's row with its preview, before its first log entries (the caller appends those in
 * between); the row as stored.
 */
export function* createSessionRowProgram(row: NewSession, preview: SessionPreview): SqlProgram<SessionRow> {
  return yield* insertSessionProgram({ ...row, preview });
}

/** What follows a new session's first entries: forgetting an earlier refusal of its id. */
export function* finishSessionCreationProgram(sessionId: string): SqlProgram<void> {
  yield* forgetRejectionProgram(sessionId);
}

/**
 * Every row about the session (its log is the log store's to delete, in the same transaction);
 * `tables`: the daemon's tables with a `session` column, when the caller keeps that list.
 */
export function* deleteSessionProgram(sessionId: string, tables?: readonly string[]): SqlProgram<void> {
  yield* deleteSessionRowsProgram(sessionId, tables);
}
