/**
 * What a turn's run (turn-run.ts) is given: its ids, the daemon's services, the session's row,
 * conversation and approval gate, and the optional parts (trace, budget, compaction).
 *
 * Boundary rule: a type only.
 */
import type { ToolMeta } from "../../model/tools.js";
import type { Conversation } from "../../worker/index.js";
import type { ApprovalGate } from "../approval/approval-gate.js";
import type { TurnBudget } from "../budget/turn-budget.js";
import type { TurnCompaction } from "../compaction/compaction.js";
import type { BoundClient, SessionServices } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { TurnTrace } from "../telemetry/turn-trace.js";
import type { TurnToolServices } from "./turn-tools.js";

export interface TurnRunOptions {
  id: string;
  inputIds: readonly string[];
  /** What the daemon gives the turn: its client, its tools, config.json's settings, checkpoints. */
  services: Pick<SessionServices, "bindClient" | "turnSettings" | "checkpoint" | "meter"> & TurnToolServices;
  session: SessionRow;
  /** The session's history, appending through its log writer. */
  conversation: Conversation;
  /** The session's approvals: the turn's tool calls pass through it. */
  gate: ApprovalGate;
  /**
   * The turn starts before its start is durable (its start commit is written, its fsync not yet
   * done): what it would publish waits until `release()`, and nothing is published if it never
   * comes (the turn is then aborted). Without it, the turn publishes as it goes.
   */
  held?: boolean;
  /** The turn's trace (none when the daemon exports no traces). */
  trace?: TurnTrace | undefined;
  /** A tool of the turn started, or the result of one was committed (`toolsUnsettled` changed). */
  onToolsChanged?: () => void;
  /** The turn's budget check before each request (none: no budget is checked). */
  budget?: TurnBudget;
  /** The session's compaction hooks for this turn's client (none: the turn never compacts). */
  compaction?: (
    bound: BoundClient,
    systemPrompt: string | null,
    tools: readonly ToolMeta[],
  ) => TurnCompaction;
}
