/**
 * The scheduler: a loop in every daemon that fires due schedules. Each firing is an input
 * admitted through the session's actor under an id derived from the schedule and the firing's
 * time (firing-id.ts), and only after the admission is the schedule's next firing moved, by a
 * compare-and-set on the time it fired. So a crash between the two fires the same time again
 * with the same id, and two nodes handling the same firing derive the same id: the input is
 * admitted once either way, and one of the two moves the schedule.
 *
 * Boundary rule: the scheduler writes inputs only through the registry (so a firing into a busy
 * session queues like any input, and on a cluster only the session's owner admits it). A firing
 * whose session another node owns is left to that node's scheduler (`ownedElsewhere`); nothing
 * is moved here. Refusals that will not change (a deleted session, a workspace gone) move the
 * schedule on without a firing, logged; other failures are retried on the next tick.
 *
 * Between ticks the scheduler sleeps until the earliest firing in the table, at most `pollMs`
 * (a clock that jumps is caught then), and `wake` cuts the sleep short when a schedule changed:
 * on this node (its routes), or on a cluster on any node (its NOTIFY, and once after the
 * wake-up connection came back: scheduler-of.ts). The bound covers a notification lost all the
 * same (boot/longest-sleep.ts).
 */
import type pino from "pino";
import type { InputIntent } from "../../api/inputs.js";
import { SessionNotFoundError } from "../../log/errors.js";
import { unreachable } from "../../model/unreachable.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { scheduleClientId } from "../budget/schedule-attribution.js";
import { SessionExistsError } from "../errors.js";
import { ProblemError } from "../http/problem.js";
import type { ScheduleRow } from "../storage/schedules-table.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { firingId } from "./firing-id.js";
import { type ScheduleTiming, stepAt } from "./schedule-timing.js";

/** What the scheduler works with. */
export interface SchedulerServices {
  storage: SessionStorage;
  registry: SessionRegistry;
  logger: pino.Logger;
  now(): number;
  /** Create a new session `id` as `POST /schedules`' `new_session` describes it. */
  createSession(id: string, spec: { workspace: string; profile: string | null }): Promise<void>;
  /** True when `error` says another node owns the session (its scheduler fires into it). */
  ownedElsewhere(error: unknown): boolean;
  /** The longest sleep between two looks at the table (a missed wake; the clock may jump). */
  pollMs?: number;
}

/** How many due schedules one tick handles at most. */
const dueBatch = 100;

/** How long due schedules that did not move wait before the next look. */
const stuckRetryMs = 250;

/** The timing of a stored schedule. */
function timingOf(row: ScheduleRow): ScheduleTiming {
  if (row.cron !== null) return { kind: "cron", cron: row.cron, timezone: row.timezone };
  if (row.at !== null) return { kind: "at", at: row.at };
  throw new Error(`schedule ${row.id} has neither a cron expression nor a time`);
}

export class Scheduler {
  readonly #services: SchedulerServices;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  /** A wake came during a tick: look again once it ends (the tick may have read before the change). */
  #again = false;
  #started = false;
  #stopped = false;

  constructor(services: SchedulerServices) {
    this.#services = services;
  }

  /** Start ticking. */
  start(): void {
    this.#started = true;
    this.#schedule(0);
  }

  /** Look at the table now (a schedule was created, paused, resumed or removed, here or on another node). */
  wake(): void {
    // Before the start the first tick reads the table anyway.
    if (!this.#started || this.#stopped) return;
    if (this.#running !== null) this.#again = true;
    else this.#schedule(0);
  }

  /** Stop ticking and wait for a tick in progress. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** Tick after `delayMs` (instead of any tick pending: one chain of ticks at a time). */
  #schedule(delayMs: number): void {
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      this.#running = this.#tick().then((delay) => {
        this.#running = null;
        const again = this.#again;
        this.#again = false;
        this.#schedule(again ? 0 : delay);
      });
    }, delayMs);
    this.#timer.unref();
  }

  /** Fire what is due; resolves with how long to sleep before the next tick. */
  async #tick(): Promise<number> {
    const { storage, logger, now } = this.#services;
    const pollMs = this.#services.pollMs ?? 1_000;
    try {
      // One read when nothing is due (the common case): the due rows are read only after it.
      let earliest = await storage.earliestFiring();
      if (earliest === null) return pollMs;
      if (earliest > now()) return Math.min(pollMs, Math.max(10, earliest - now()));
      let moved = false;
      for (const row of await storage.dueSchedules(now(), dueBatch)) {
        if (this.#stopped) return pollMs;
        moved =
          (await this.#handle(row).catch((error: unknown) => {
            logger.warn({ err: error, schedule_id: row.id }, "schedule firing failed; retrying");
            return false;
          })) || moved;
      }
      earliest = await storage.earliestFiring();
      // Due rows this tick could not move (another node's session, a failure) are looked at
      // again after a pause, not in a tight loop; a backlog that moves is worked off at once.
      if (earliest !== null && earliest <= now()) return moved ? 10 : stuckRetryMs;
      if (earliest !== null) return Math.min(pollMs, Math.max(10, earliest - now()));
    } catch (error) {
      logger.warn({ err: error }, "scheduler could not read the schedules");
    }
    return pollMs;
  }

  /** Fire or skip one due schedule, then move its next firing (compare-and-set); true when moved. */
  async #handle(row: ScheduleRow): Promise<boolean> {
    const { storage, logger } = this.#services;
    const expected = row.nextFireAt;
    if (expected === null) return false;
    const step = stepAt(timingOf(row), row.missed, expected, this.#services.now());
    switch (step.kind) {
      case "wait":
        return false;
      case "skip": {
        const moved = await storage.advanceSchedule(row.id, expected, step.next, null);
        if (moved)
          logger.info({ schedule_id: row.id, missed_at: expected, next: step.next }, "missed firing skipped");
        return moved;
      }
      case "fire":
        break;
      default:
        return unreachable(step, "unknown step");
    }
    const inputId = firingId("input", row.id, step.fireAt);
    const sessionId = row.sessionId ?? firingId("session", row.id, step.fireAt);
    const outcome = await this.#admit(row, sessionId, inputId);
    if (outcome === "elsewhere") return false;
    const firing = outcome === "admitted" ? { firedAt: step.fireAt, inputId, sessionId } : null;
    const moved = await storage.advanceSchedule(row.id, expected, step.next, firing);
    if (moved) {
      logger.info(
        { schedule_id: row.id, fire_at: step.fireAt, input_id: inputId, session_id: sessionId, outcome },
        "schedule fired",
      );
    }
    return moved;
  }

  /** Admit the firing's input (creating its new session first when the schedule makes one). */
  async #admit(
    row: ScheduleRow,
    sessionId: string,
    inputId: string,
  ): Promise<"admitted" | "refused" | "elsewhere"> {
    const { registry, logger } = this.#services;
    const intent: InputIntent = { kind: "message", text: row.prompt };
    try {
      if (row.newSession !== null) await this.#ensureSession(sessionId, row.newSession);
      const clientId = scheduleClientId(row.id);
      const receipt = await registry.withActor(sessionId, (actor) =>
        actor.submit(inputId, intent, { clientId, sentBy: null, sentFrom: null }),
      );
      if (receipt.client_id === clientId) return "admitted";
      // A client sent an input under this firing's id first (the derivation is public): that
      // input is the client's, not the schedule's, so the firing counts as refused.
      logger.warn({ schedule_id: row.id, input_id: inputId }, "a client's input took the firing's id");
      return "refused";
    } catch (error) {
      if (this.#services.ownedElsewhere(error)) return "elsewhere";
      if (error instanceof SessionNotFoundError || (error instanceof ProblemError && error.status < 500)) {
        logger.warn({ err: error, schedule_id: row.id, session_id: sessionId }, "schedule firing refused");
        return "refused";
      }
      throw error;
    }
  }

  async #ensureSession(id: string, spec: { workspace: string; profile: string | null }): Promise<void> {
    if (await this.#services.registry.exists(id)) return;
    try {
      await this.#services.createSession(id, spec);
    } catch (error) {
      // Another node (or this one before a crash) created it first: it is the same session.
      if (!(error instanceof SessionExistsError)) throw error;
    }
  }
}
