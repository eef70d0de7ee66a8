/**
 * The parts of one loaded session, put together around the one port they share: the log writer,
 * the port (the log, publishing on the session's feed, its mailbox, the clock, the logger), the
 * input queue, the approval gate, the compactor and the turn scheduler.
 *
 * Boundary rule: built once per actor (actor/session-actor.ts), which owns the feed and the
 * mailbox (actor/actor-lifecycle.ts) the port reaches.
 */
import type { RestoredLog } from "../../log/tail-restore.js";
import { ApprovalGate } from "../approval/approval-gate.js";
import { SessionCompactor } from "../compaction/compaction.js";
import { InputQueue } from "../session/input-queue.js";
import { checkPrefix } from "../session/prefix-check.js";
import { SessionLogWriter } from "../session/session-log-writer.js";
import { feedOutlet } from "../session/session-outlet.js";
import { feedPort, type SessionPort } from "../session/session-port.js";
import type { SessionServices } from "../session/session-services.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { SessionFeed } from "../stream/session-feed.js";
import type { TurnSupervisor } from "../turn/turn-parts.js";
import { TurnScheduler } from "../turn/turn-scheduler.js";

export interface SessionParts {
  port: SessionPort;
  log: SessionLogWriter;
  inputs: InputQueue;
  gate: ApprovalGate;
  compactor: SessionCompactor;
  turns: TurnScheduler;
}

/** What the actor hears of its parts: every commit, and what its turn scheduler tells. */
export interface PartsOwner extends TurnSupervisor {
  /** A commit went through (the session's summary changed). */
  committed(): void;
}

/**
 * The parts of the session whose row is `row` and whose log was just restored (its reads
 * verified) as `restored`, publishing on `feed`, appending inside `serialize` (the actor's
 * mailbox). A log restored from a state checkpoint has the part before it verified in the
 * background (session/prefix-check.ts).
 */
export function sessionParts(
  services: SessionServices,
  row: SessionRow,
  restored: RestoredLog,
  feed: SessionFeed,
  serialize: <T>(task: () => Promise<T> | T) => Promise<T>,
  owner: PartsOwner,
): SessionParts {
  const { storage } = services;
  const outlet = feedOutlet(
    row.id,
    feed,
    services.now,
    services.logger,
    services.observeEvent,
    services.meter,
    services.notifications,
  );
  const place = { storage, writer: storage.writerFromRestore(row.id, restored), preview: row.preview };
  const log = new SessionLogWriter(outlet, place, restored.entries);
  log.observe({ committed: () => owner.committed() });
  const port = feedPort(outlet, feed, log, serialize);
  const inputs = new InputQueue(outlet, storage);
  // The gate observes the log before the scheduler does: a commit's approval events go out
  // before the status they change.
  const gate = new ApprovalGate(port);
  const compactor = new SessionCompactor(port, services.limitsOf);
  const turns = new TurnScheduler(port, services, { inputs, gate, compactor }, owner);
  // It reports what it finds itself (a corrupt prefix marks the log corrupt): nothing awaits it.
  if (restored.checkpoint !== null)
    void checkPrefix(log, storage, restored.checkpoint, () => owner.halted(), services.logger);
  return { port, log, inputs, gate, compactor, turns };
}
