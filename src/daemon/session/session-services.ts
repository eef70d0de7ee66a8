/**
 * What a session actor needs from the daemon around it. Passed in, never imported, so an actor
 * can be built in a test with a real database and a fake provider.
 */
import type { SessionEventData } from "../../api/session-events.js";
import type { BudgetsConfig } from "../../home/budget-config.js";
import type { LogEntry } from "../../log/entries.js";
import type { ApprovalPolicy } from "../../model/approval-policy.js";
import type { LlmClient } from "../../model/llm-client.js";
import type { RequestConfig } from "../../model/request-config.js";
import type { ToolDefinition } from "../../model/tools.js";
import type { UnknownOutcomePolicy } from "../../model/unknown-outcome.js";
import type { ModelLimits } from "../../providers/model-limits.js";
import type { NewNotification } from "../storage/outbox-table.js";
import type { RowWrites, SessionStorage } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { SessionFeedOptions } from "../stream/session-feed.js";
import type { Tracing } from "../telemetry/tracing.js";
import type { ProviderDescription } from "./session-settings.js";

/** A provider client chosen for one turn, with the names the snapshot and usage events show. */
export interface BoundClient {
  client: LlmClient;
  profileName: string;
  model: string;
  /** The session's model parameters over the profile's defaults. */
  requestConfig: RequestConfig;
  /** The model's context window, output limit, compaction threshold and prices. */
  limits: ModelLimits;
}

/** One event a session published, as an observer hears it. */
export type SessionEventObserver = <T extends keyof SessionEventData>(
  sessionId: string,
  type: T,
  data: SessionEventData[T],
) => void;

/**
 * The webhook deliveries a commit of session `sessionId` owes: its entries (held ones first)
 * and its row writes in, outbox rows out (queued in the same transaction). Called once per
 * commit, before it is written; called again if the commit is retried.
 */
export type NotificationPlanner = (
  sessionId: string,
  entries: readonly LogEntry[],
  writes: RowWrites,
  now: number,
  /** The tool of a call committed before (null: unknown). */
  toolOf: (callId: string) => string | null,
) => NewNotification[];

/** The daemon's logger, as far as sessions use it (pino's shape). */
export interface SessionLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** What the daemon's metrics measure of a session besides its events: how long things took. */
export interface SessionMeter {
  /** A model request to `profile`'s `model` ended after `seconds` (its response committed, or it failed). */
  modelRequest(profile: string, model: string, seconds: number, outcome: "ok" | "error"): void;
  /** A commit of a session's log was durable after `seconds`. */
  commit(seconds: number): void;
}

/** Which checkpoint of a turn to record. */
export type CheckpointPhase = "before" | "after" | "after-unchanged";

/** What config.json sets for a session's turns, as a turn starts. */
export interface TurnSettings {
  /** config.json's top-level `approvalPolicy`. */
  configPolicy?: ApprovalPolicy | undefined;
  /** The `approvalPolicy` of the session's provider profile. */
  profilePolicy?: ApprovalPolicy | undefined;
  /** The most tool rounds (model requests answered with tool calls) one turn takes; null: no cap. */
  maxToolRounds: number | null;
  /** config.json's `budgets` (read before every model request, so a raise applies at once). */
  budgets?: BudgetsConfig | undefined;
  /** config.json's `onUnknownOutcome` (read when a cut turn is recovered). */
  onUnknownOutcome?: UnknownOutcomePolicy | undefined;
}

/**
 * Cluster ownership of sessions (absent on a single node): a session's actor loads only on the
 * node that holds its lease, and gives the lease up when it stops.
 */
interface SessionOwnership {
  /**
   * Hold the session's lease (throws when another node holds it); the epoch it is held under,
   * which the actor loaded now writes under (its writes are refused once the epoch is not the
   * lease's).
   */
  acquire(sessionId: string): Promise<number>;
  /** The actor stopped: give the lease up so another node may take the session at once. */
  release(sessionId: string): Promise<void>;
}

/** Publishes one event on a session's stream. */
export type EventPublisher = <T extends keyof SessionEventData>(type: T, data: SessionEventData[T]) => void;

/** The daemon's agents and its `task` tool, as a session's turn sees them (daemon/task/). */
export interface Delegation {
  /**
   * The tools one turn of `session` offers: `offered` (its own), narrowed to its agent's list
   * when it is a `task` call's child, plus `task` while its depth allows; `publish` carries the
   * task events to the session's stream.
   */
  toolsFor(
    session: SessionRow,
    offered: ToolDefinition[],
    publish: EventPublisher,
  ): Promise<ToolDefinition[]>;
}

export interface SessionServices {
  /** Agents and the `task` tool; none: sessions cannot delegate. */
  delegation?: Delegation;
  /** Cluster ownership; none on a single node. */
  ownership?: SessionOwnership;
  /** Everything kept durably: the session logs and the daemon's rows. */
  storage: SessionStorage;
  /** Key of the history paging tokens. */
  historySecret: string;
  /**
   * The provider client for a session's profile and model (null: the active profile and its
   * model). Throws an Error whose message tells the user how to configure a provider.
   */
  bindClient(profileName: string | null, model: string | null, config: RequestConfig): BoundClient;
  /**
   * What a session with these settings runs with, as the config says now: null when no provider
   * is configured at all; throws `ProfileUnknownError` for a profile that is not configured.
   */
  describeProvider(
    profileName: string | null,
    model: string | null,
    config: RequestConfig,
  ): ProviderDescription | null;
  /** The limits and prices of the model these settings resolve to; null when no provider is configured. */
  limitsOf(profileName: string | null, model: string | null): ModelLimits | null;
  /**
   * The tools a session's agent gets for one turn: the built-in ones in its workspace and those
   * of its MCP servers (started on first use, so this may wait for them).
   */
  tools(session: SessionRow): Promise<ToolDefinition[]>;
  /**
   * Record the session's workspace before or after a turn (for `skein diff` / `skein undo`);
   * `after-unchanged`: the turn called no tool, its end is its start. Never throws. Absent: no
   * checkpoints.
   */
  checkpoint?(session: SessionRow, turnId: string, phase: CheckpointPhase): Promise<void>;
  /** Remove a deleted session's checkpoints (in the background; a failure is logged). */
  removeCheckpoints?(sessionId: string): void;
  /** config.json's approval policies and tool-round cap for a session's next turn. */
  turnSettings(session: SessionRow): TurnSettings;
  logger: SessionLogger;
  /** The daemon's tracing; absent when no trace is exported (then nothing is traced). */
  tracing?: Tracing;
  /** Hears how long model requests and commits took (the daemon's metrics). */
  meter?: SessionMeter;
  /** Hears every event a session publishes, after its clients (the daemon's metrics). */
  observeEvent?: SessionEventObserver;
  /** The webhook deliveries a commit owes (config.json's notifications); absent: none. */
  notifications?: NotificationPlanner;
  /** True once the daemon drains: no new turn starts. */
  isDraining(): boolean;
  feedOptions?: SessionFeedOptions;
  /** The clock (ms since the epoch); tests may pin it. */
  now(): number;
}
