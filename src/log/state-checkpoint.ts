/**
 * State checkpoints: the replayed state of a log at one of its positions, as a signed record
 * (session, position, hash, SHA-256 of the state's canonical JSON), so a long log can be
 * restored from its latest checkpoint and the entries after it instead of from its first entry.
 *
 * Why it is exact: the checkpoint holds the whole `RestoredState` at its position (the context
 * since the last compaction, request count, usage, approvals, settings, plan...), and replay
 * is a left fold, so the state after the tail is the fold of the tail over it.
 *
 * Boundary rule: pure (no I/O, no keys): texts, digests and the fold; stores keep and sign the
 * records (see checkpoint-records.ts), restore reads them (tail-restore.ts).
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "./canonical-json.js";
import { applyEntry } from "./collect-state.js";
import type { LogEntry, PositionedEntry } from "./entries.js";
import { LogCorruptError } from "./errors.js";
import type { ResolvedApproval, RestoredState } from "./restored-state.js";
import type { LogHead } from "./store.js";

/** Default distance in positions between checkpoints written without a compaction. */
const defaultCheckpointSpacing = 4_096;

/** A checkpoint as written: where it is in the chain and the state there as canonical JSON. */
export interface StateCheckpoint extends LogHead {
  /** Canonical JSON of the state at `position` (its `head_hash` left out: it is `hash`). */
  state: string;
}

/** The state at `head`, as a checkpoint to write (the state must be the replay up to `head`). */
export function checkpointOf(state: Readonly<RestoredState>, head: LogHead): StateCheckpoint {
  const { head_hash: _head, ...rest } = state;
  return { position: head.position, hash: head.hash, state: canonicalJson(rest) };
}

/** SHA-256 (lowercase hex) of a checkpoint's state text: what its signature covers. */
export function checkpointDigest(stateText: string): string {
  return createHash("sha256").update(stateText, "utf8").digest("hex");
}

/**
 * The state a checkpoint's text describes, with `head_hash` its hash. The text was signed by a
 * trusted key, so its shape is the writer's; a text that does not parse is still corruption.
 */
export function stateOfCheckpoint(sessionId: string, checkpoint: StateCheckpoint): RestoredState {
  let parsed: Omit<RestoredState, "head_hash">;
  try {
    parsed = JSON.parse(checkpoint.state) as Omit<RestoredState, "head_hash">;
  } catch {
    throw new LogCorruptError(sessionId, checkpoint.position, "the state checkpoint is not valid JSON");
  }
  // Answers are a null-prototype record (call ids are data, "__proto__" included).
  const decisions = Object.assign(
    Object.create(null) as Record<string, ResolvedApproval>,
    parsed.approval_decisions,
  );
  return { ...parsed, approval_decisions: decisions, head_hash: checkpoint.hash };
}

/**
 * The state after `tail` (verified entries, in order, from the checkpoint's position + 1) folded
 * over the checkpoint's state: what `collectState` gives over the whole log.
 */
export function restoreFromCheckpoint(
  sessionId: string,
  checkpoint: StateCheckpoint,
  tail: readonly PositionedEntry[],
): RestoredState {
  const state = stateOfCheckpoint(sessionId, checkpoint);
  for (const placed of tail) {
    applyEntry(state, placed.entry);
    state.head_hash = placed.hash;
  }
  return state;
}

/**
 * Whether a commit that just moved the head to `position` (storing `entries`) should write a
 * checkpoint: it stored a compaction (the context just shrank: the cheapest state to keep) or
 * the head moved `spacing` positions past the last checkpoint (-1: none yet).
 */
export function checkpointDue(
  lastCheckpoint: number,
  position: number,
  entries: readonly LogEntry[],
  spacing = defaultCheckpointSpacing,
): boolean {
  if (entries.some((entry) => entry.kind === "compaction")) return true;
  return position - lastCheckpoint >= spacing;
}
