/**
 * The daemon's V8 flags: the defaults (one set at load, one once serving), SKEIN_V8_FLAGS
 * replacing or removing them, and a daemon started by `skein daemon run` running with them (read inside the daemon's process by a
 * script node preloads there, which writes down what the process set when it exits).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_DAEMON_V8_FLAGS, daemonV8Flags } from "../../src/cli/daemon-v8-flags.js";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

// Plain JavaScript run by the daemon's node before the CLI: at exit, the flags the daemon
// recorded as set (daemon-v8-flags.ts) go to the file named by the environment.
const probe = `
import { writeFileSync } from "node:fs";
process.on("exit", () => {
  const flags = globalThis[Symbol.for("skein.daemonV8Flags")] ?? null;
  writeFileSync(process.env.V8_FLAGS_PROBE_OUT, JSON.stringify(flags));
});
`;

describe("the daemon's V8 flags", () => {
  const root = mkdtempSync(join(tmpdir(), "skein-v8-flags-"));
  const probePath = join(root, "probe.mjs");
  writeFileSync(probePath, probe);

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  /** The flags a daemon started by `skein daemon run` with `env` had set when it stopped. */
  async function flagsOfADaemon(env: Record<string, string>): Promise<unknown> {
    const out = join(root, `flags-${Math.random().toString(36).slice(2)}.json`);
    const app = await DaemonHarness.start({
      env: { NODE_OPTIONS: `--import=${probePath}`, V8_FLAGS_PROBE_OUT: out, ...env },
    });
    try {
      expect(await app.shutdown(10_000)).toBe(0);
    } finally {
      await app.close();
    }
    return JSON.parse(readFileSync(out, "utf8"));
  }

  it("are a four times larger interrupt budget at load and Sparkplug at once when serving, by default", () => {
    expect(DEFAULT_DAEMON_V8_FLAGS).toEqual({
      atLoad: ["--interrupt-budget=270336"],
      onceServing: ["--always-sparkplug"],
    });
    expect(daemonV8Flags({})).toEqual(DEFAULT_DAEMON_V8_FLAGS);
  });

  it("are replaced by SKEIN_V8_FLAGS, and none with none or an empty value", () => {
    expect(daemonV8Flags({ SKEIN_V8_FLAGS: "--interrupt-budget=135168  --single-threaded-gc" })).toEqual({
      atLoad: ["--interrupt-budget=135168", "--single-threaded-gc"],
      onceServing: [],
    });
    expect(daemonV8Flags({ SKEIN_V8_FLAGS: "none" })).toEqual({ atLoad: [], onceServing: [] });
    expect(daemonV8Flags({ SKEIN_V8_FLAGS: "" })).toEqual({ atLoad: [], onceServing: [] });
  });

  it("refuse a SKEIN_V8_FLAGS word that is not a flag", () => {
    expect(() => daemonV8Flags({ SKEIN_V8_FLAGS: "interrupt-budget=1" })).toThrow(/not a V8 flag/);
  });

  it("are set in a daemon started by skein daemon run", async () => {
    expect(await flagsOfADaemon({})).toEqual(DEFAULT_DAEMON_V8_FLAGS);
  });

  it("are not set in a daemon started with SKEIN_V8_FLAGS=none", async () => {
    expect(await flagsOfADaemon({ SKEIN_V8_FLAGS: "none" })).toEqual({ atLoad: [], onceServing: [] });
  });
});
