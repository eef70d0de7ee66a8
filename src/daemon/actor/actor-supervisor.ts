/**
 * What a session actor tells its supervisor (the registry, session-registry.ts), and why an
 * actor stops.
 */
import type { SessionStatus } from "../../api/session-snapshot.js";

export type StopReason = "unload" | "restart" | "shutdown" | "deleted" | "crashed" | "lease_lost";

/** An actor as its supervisor hears of it. */
export interface SupervisedActor {
  readonly sessionId: string;
  /** The session it was forked from (null: not a fork). */
  readonly parentId: string | null;
  readonly status: SessionStatus;
}

/** What an actor tells its supervisor besides what its methods return. */
export interface ActorSupervisor {
  /** The actor failed unexpectedly and stopped; the supervisor may replace it. */
  crashed(actor: SupervisedActor, error: unknown): void;
  /** The session's summary changed: activity, preview, usage or input order. */
  summaryChanged(actor: SupervisedActor): void;
  /** The session's status changed. */
  statusChanged(actor: SupervisedActor, status: SessionStatus): void;
  /** The session was deleted (its rows and log are gone). */
  deleted(actor: SupervisedActor): void;
}
