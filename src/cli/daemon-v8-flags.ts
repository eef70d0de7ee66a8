/**
 * The V8 flags the daemon runs with, in two sets: those `loadDaemon` sets before the daemon's
 * code is loaded (a flag set then holds for every function compiled after it), and those set
 * once the daemon serves, after its start-up.
 *
 * Why: the daemon's work per turn is many functions each run once or a few times.
 * - At load, a four times larger interrupt budget: V8 spent a large part of a turn compiling
 *   such functions with TurboFan (on its compiler thread) for calls that mostly never came; the
 *   larger budget keeps a function in the lower tiers longer, so only the really hot ones are
 *   optimized. Measured with `bench/instructions.ts` (callgrind, every thread of the daemon): a
 *   plain turn went from 8.2–11.5 M to 7.5–9.4 M instructions after 40 warm-up turns and from
 *   13.1–15.4 M to 7.8–9.1 M after 300.
 * - Once serving, `--always-sparkplug`: a function is compiled to Sparkplug's baseline code
 *   when it is first compiled, instead of being interpreted until its budget runs out (which the
 *   larger budget made four times longer). The first sessions of a new daemon run code the
 *   daemon has never run: a one-shot session after 5 warm-up ones went from 12.9–21.3 M to
 *   9.9 M instructions (8.7 M with the flag set at load). Not at load: start-up runs
 *   thousands of functions once (route and schema set-up), and compiling each to baseline code
 *   made `skein daemon run` ready 40% later.
 * Both change when code is compiled, never what it does (docs/architecture.md has the tables).
 */
import { setFlagsFromString } from "node:v8";

/** The daemon's V8 flags: set before its code loads, and set once it serves. */
export interface DaemonV8Flags {
  readonly atLoad: readonly string[];
  readonly onceServing: readonly string[];
}

/** The flags the daemon sets when SKEIN_V8_FLAGS is unset. */
export const DEFAULT_DAEMON_V8_FLAGS: DaemonV8Flags = {
  atLoad: ["--interrupt-budget=270336"],
  onceServing: ["--always-sparkplug"],
};

/** Where the flags set in this process are recorded, for a look from outside (tests, a debugger). */
const appliedKey = Symbol.for("skein.daemonV8Flags");

/**
 * The daemon's V8 flags: SKEIN_V8_FLAGS (space-separated) replaces both sets when given, its
 * flags all set at load, and `none` or an empty value sets none (for a before/after, or to rule
 * the flags out).
 */
export function daemonV8Flags(env: NodeJS.ProcessEnv): DaemonV8Flags {
  const given = env.SKEIN_V8_FLAGS;
  if (given === undefined) return DEFAULT_DAEMON_V8_FLAGS;
  const flags = given.split(/\s+/).filter((flag) => flag !== "" && flag !== "none");
  const bad = flags.find((flag) => !flag.startsWith("--"));
  if (bad !== undefined) throw new Error(`SKEIN_V8_FLAGS: ${bad} is not a V8 flag (--name[=value])`);
  return { atLoad: flags, onceServing: [] };
}

/** Sets one of the daemon's sets of V8 flags in this process and records it; returns the set. */
export function applyDaemonV8Flags(env: NodeJS.ProcessEnv, when: keyof DaemonV8Flags): readonly string[] {
  const flags = daemonV8Flags(env)[when];
  for (const flag of flags) setFlagsFromString(flag);
  const record = globalThis as { [appliedKey]?: Partial<Record<keyof DaemonV8Flags, readonly string[]>> };
  Object.defineProperty(globalThis, appliedKey, {
    value: { ...record[appliedKey], [when]: flags },
    configurable: true,
  });
  return flags;
}
