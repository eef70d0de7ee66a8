/**
 * Where a fork starts: the source's state up to and including one history entry (a checkpoint),
 * with every tool call left without its result answered "not executed after branch checkpoint".
 *
 * Boundary rule: pure. It relies on the projection's rule that every item of a log entry is
 * exactly one history entry, in order, so a checkpoint id names one item of one log entry.
 */
import { collectState } from "../../log/collect-state.js";
import type { PositionedEntry, SessionOrigin } from "../../log/entries.js";
import type { Item } from "../../model/items.js";
import type { RequestConfig } from "../../model/request-config.js";
import { projectEntry, type ToolNames } from "../history/project-history.js";
import { closeOpenCalls } from "./open-tool-calls.js";

export interface ForkPlan {
  systemPrompt: string | null;
  config: RequestConfig;
  history: Item[];
  origin: SessionOrigin;
}

/** The checkpoint is not a checkpoint of the source session (400). */
export class CheckpointUnknownError extends Error {
  constructor(
    readonly sessionId: string,
    readonly checkpointId: string,
  ) {
    super(`session ${sessionId} has no history entry with checkpoint_id ${JSON.stringify(checkpointId)}`);
    this.name = "CheckpointUnknownError";
  }
}

/** The state a fork at `checkpointId` of the source log starts from. */
export function planFork(
  entries: readonly PositionedEntry[],
  sourceId: string,
  checkpointId: string,
): ForkPlan {
  const names: ToolNames = new Map();
  for (let i = 0; i < entries.length; i++) {
    const placed = entries[i]!;
    const projected = projectEntry(placed, names);
    const k = projected.findIndex((entry) => entry.checkpoint_id === checkpointId);
    if (k < 0) continue;
    const before = collectState(entries.slice(0, i));
    const state = collectState(entries.slice(0, i + 1));
    // A session_start replaces the history; any other entry appends its items to it.
    const replaces = placed.entry.kind === "session_start";
    const base = replaces ? [] : before.history;
    const itemsOfEntry = replaces ? state.history : state.history.slice(before.history.length);
    const history = [...base, ...itemsOfEntry.slice(0, k + 1)];
    history.push(...closeOpenCalls(history, "branch_checkpoint"));
    return {
      systemPrompt: state.system_prompt,
      config: state.config,
      history,
      origin: { session_id: sourceId, entry_hash: placed.hash },
    };
  }
  throw new CheckpointUnknownError(sourceId, checkpointId);
}
