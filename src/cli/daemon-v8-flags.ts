/**
 * The V8 flags the daemon runs with, set by `loadDaemon` before the daemon's code is loaded (a
 * flag set then holds for every function compiled after it).
 *
 * Why: the daemon's work per turn is many functions each run once or a few times, and V8 spent
 * a large part of it compiling them with TurboFan (on its compiler thread) for calls that mostly
 * never came. A four times larger interrupt budget lets a function run longer in the
 * interpreter and Sparkplug before it is optimized, so only the really hot ones are. Measured
 * with `bench/instructions.ts` (callgrind, every thread of the daemon, several runs each): a
 * plain turn went from 8.2–11.5 M to 7.5–9.4 M instructions after 40 warm-up turns and from
 * 13.1–15.4 M to 7.8–9.1 M after 300, a one-shot session from 11.3–13.1 M to 10.2–10.6 M; the
 * other threads' share of a turn fell from 3.4 M to 0.75 M (9.2 M to 0.77 M after 300) against
 * 4–13% more on the main thread (docs/architecture.md, "The daemon", has the table). It
 * changes when code is optimized, never what it does.
 */
import { setFlagsFromString } from "node:v8";

/** The flags the daemon sets when SKEIN_V8_FLAGS is unset: 4× V8's default interrupt budget. */
export const DEFAULT_DAEMON_V8_FLAGS: readonly string[] = ["--interrupt-budget=270336"];

/** Where the flags set in this process are recorded, for a look from outside (tests, a debugger). */
const appliedKey = Symbol.for("skein.daemonV8Flags");

/**
 * The daemon's V8 flags: SKEIN_V8_FLAGS (space-separated) replaces the defaults when set, and
 * `none` or an empty value sets none (for a before/after, or to rule the flags out).
 */
export function daemonV8Flags(env: NodeJS.ProcessEnv): readonly string[] {
  const given = env.SKEIN_V8_FLAGS;
  if (given === undefined) return DEFAULT_DAEMON_V8_FLAGS;
  const flags = given.split(/\s+/).filter((flag) => flag !== "" && flag !== "none");
  const bad = flags.find((flag) => !flag.startsWith("--"));
  if (bad !== undefined) throw new Error(`SKEIN_V8_FLAGS: ${bad} is not a V8 flag (--name[=value])`);
  return flags;
}

/** Sets the daemon's V8 flags in this process and records them; returns them. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv): readonly string[] {
  const flags = daemonV8Flags(env);
  for (const flag of flags) setFlagsFromString(flag);
  Object.defineProperty(globalThis, appliedKey, { value: flags, configurable: true });
  return flags;
}
