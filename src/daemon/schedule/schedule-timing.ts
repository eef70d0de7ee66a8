/**
 * When a schedule fires: the next time of a cron expression (croner, in a time zone) or of a
 * one-shot time, and what the scheduler does with a schedule whose time has come (fire it, or
 * skip a missed firing by its policy).
 *
 * Boundary rule: pure computation on times in milliseconds; no storage, no clock of its own.
 * A firing is missed when the scheduler reaches it more than `missedAfterMs` after its time:
 * a running daemon fires within about a second, so that much lateness means no daemon that
 * could fire it was running (or the session's owner was gone until its lease expired).
 */
import { Cron } from "croner";
import { unreachable } from "../../model/unreachable.js";

/** A schedule's timing: a cron expression (in a time zone, UTC by default) or one time. */
export type ScheduleTiming =
  | { kind: "cron"; cron: string; timezone: string | null }
  | { kind: "at"; at: number };

/** What is done with firings missed while nothing could fire them. */
export type MissedPolicy = "skip" | "run_once";

/** A firing later than this when reached counts as missed. */
export const missedAfterMs = 10_000;

/** What the scheduler does now with a schedule whose next firing is at `nextFireAt`. */
export type FiringStep =
  | { kind: "wait" }
  /** Fire at `fireAt` (the ids derive from it), then move the next firing to `next`. */
  | { kind: "fire"; fireAt: number; next: number | null }
  /** Fire nothing; move the next firing to `next`. */
  | { kind: "skip"; next: number | null };

/** Why a cron expression or time zone is refused, or null when it can be used. */
export function timingProblem(timing: ScheduleTiming): string | null {
  if (timing.kind === "at") return null;
  if (timing.timezone !== null && !isTimeZone(timing.timezone)) {
    return `timezone ${JSON.stringify(timing.timezone)} is not an IANA time zone (e.g. "Europe/Berlin")`;
  }
  try {
    const next = cronOf(timing).nextRun(new Date());
    return next === null ? `cron expression ${JSON.stringify(timing.cron)} never fires` : null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return `cron expression ${JSON.stringify(timing.cron)} is invalid: ${reason}`;
  }
}

/** The first firing strictly after `afterMs`, or null (a one-shot time already passed, or never). */
export function nextFiringAfter(timing: ScheduleTiming, afterMs: number): number | null {
  switch (timing.kind) {
    case "at":
      return timing.at > afterMs ? timing.at : null;
    case "cron":
      return cronOf(timing).nextRun(new Date(afterMs))?.getTime() ?? null;
    default:
      return unreachable(timing, "unknown timing");
  }
}

/** A new schedule's first firing, created at `createdAt` (a one-shot time may lie in the past). */
export function firstFiring(timing: ScheduleTiming, createdAt: number): number | null {
  return timing.kind === "at" ? timing.at : nextFiringAfter(timing, createdAt);
}

/**
 * The step for a schedule due at `nextFireAt` (null: it will never fire again), seen at `now`.
 * On time: fire it, then the next firing after it (a backlog within the grace fires one by one).
 * Missed: `skip` fires nothing and moves to the first firing after `now`; `run_once` fires once,
 * for the latest firing time not after `now`, then moves past it.
 */
export function stepAt(
  timing: ScheduleTiming,
  missed: MissedPolicy,
  nextFireAt: number | null,
  now: number,
): FiringStep {
  if (nextFireAt === null || nextFireAt > now) return { kind: "wait" };
  if (now - nextFireAt <= missedAfterMs) {
    return { kind: "fire", fireAt: nextFireAt, next: nextFiringAfter(timing, nextFireAt) };
  }
  switch (missed) {
    case "skip":
      return { kind: "skip", next: nextFiringAfter(timing, now) };
    case "run_once": {
      const latest = latestFiringUpTo(timing, nextFireAt, now);
      return { kind: "fire", fireAt: latest, next: nextFiringAfter(timing, latest) };
    }
    default:
      return unreachable(missed, "unknown missed policy");
  }
}

/** The latest firing time in [`from`, `now`], `from` being one. */
function latestFiringUpTo(timing: ScheduleTiming, from: number, now: number): number {
  if (timing.kind === "at") return from;
  const latest =
    cronOf(timing)
      .previousRuns(1, new Date(now + 1))[0]
      ?.getTime() ?? from;
  return Math.max(latest, from);
}

function cronOf(timing: { cron: string; timezone: string | null }): Cron {
  return new Cron(timing.cron, { paused: true, timezone: timing.timezone ?? "UTC" });
}

function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
