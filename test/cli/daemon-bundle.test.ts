/**
 * The daemon's bundle and its V8 code cache: a bundle runs with its cache when the cache was made
 * from it, without one (absent, refused by V8, or of another bundle) the same way, and a daemon
 * started by `skein daemon run` from this build takes the cache the build made (read inside the
 * daemon's process by a script node preloads there, which writes the state down at exit).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import {
  BUNDLE_ID_MARK,
  bundleIdOf,
  daemonCodeCacheFile,
  loadDaemonBundle,
  makeDaemonCodeCache,
} from "../../src/cli/daemon-bundle.js";
import { DaemonHarness } from "../e2e/support/daemon-harness.js";

const root = mkdtempSync(join(tmpdir(), "skein-daemon-bundle-"));

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

const stateKey = Symbol.for("skein.daemonCodeCache");
const loadState = () => (globalThis as Record<symbol, unknown>)[stateKey];

/** A small CommonJS bundle ending in its id line, using what the wrapper gives it. */
function writeBundle(name: string, id: string, answer: number): string {
  const file = join(root, name);
  const body = [
    '"use strict";',
    'const { basename } = require("node:path");',
    "function square(n) { return n * n; }",
    `module.exports = { answer: square(${answer}), file: basename(__filename), url: __skeinBundleUrl };`,
  ].join("\n");
  writeFileSync(file, `${body}\n${BUNDLE_ID_MARK}${id}\n`);
  return file;
}

describe("the daemon's bundle", () => {
  it("reads the id on the bundle's last line, and none from a line without 16 hex digits", () => {
    expect(bundleIdOf(`x\n${BUNDLE_ID_MARK}0123456789abcdef\n`)).toBe("0123456789abcdef");
    expect(bundleIdOf("x\n")).toBeNull();
    expect(bundleIdOf(`x\n${BUNDLE_ID_MARK}0123\n`)).toBeNull();
    expect(bundleIdOf(`x\n${BUNDLE_ID_MARK}0123456789abcdef; evil()\n`)).toBeNull();
  });

  it("runs with the code cache made from it, and gets its exports and its wrapper's values", () => {
    const file = writeBundle("cached.cjs", "00000000000000a1", 7);
    const made = makeDaemonCodeCache(file);
    expect(made.file).toBe(daemonCodeCacheFile(file, "00000000000000a1"));
    expect(made.bytes).toBeGreaterThan(0);
    expect(loadDaemonBundle(file)).toEqual({ answer: 49, file: "cached.cjs", url: pathToFileURL(file).href });
    expect(loadState()).toBe("accepted");
  });

  // Each case its own text: V8 keeps what it compiled in this process and would not look at a
  // cache for a text it compiled before.
  it("runs the same without a cache", () => {
    const file = writeBundle("uncached.cjs", "00000000000000b2", 3);
    expect(loadDaemonBundle(file)).toMatchObject({ answer: 9 });
    expect(loadState()).toBe("absent");
  });

  it("runs the same with a cache V8 refuses", () => {
    const file = writeBundle("refused.cjs", "00000000000000b3", 6);
    writeFileSync(daemonCodeCacheFile(file, "00000000000000b3"), Buffer.from("not a code cache at all"));
    expect(loadDaemonBundle(file)).toMatchObject({ answer: 36 });
    expect(loadState()).toBe("rejected");
  });

  it("does not take the cache of an earlier bundle at the same path", () => {
    const file = writeBundle("rebuilt.cjs", "00000000000000c3", 4);
    makeDaemonCodeCache(file);
    writeBundle("rebuilt.cjs", "00000000000000c4", 5);
    expect(loadDaemonBundle(file)).toMatchObject({ answer: 25 });
    expect(loadState()).toBe("absent");
  });

  it("is built with exactly one code cache, named by the id its last line gives", () => {
    const dist = join(import.meta.dirname, "../../dist");
    const bundle = join(dist, "daemon.bundle.cjs");
    const id = bundleIdOf(readFileSync(bundle, "latin1"));
    expect(id).toMatch(/^[0-9a-f]{16}$/);
    const caches = readdirSync(dist).filter((name) => name.endsWith(".code-cache"));
    expect(caches).toEqual([`daemon.bundle.cjs.${id}.code-cache`]);
  });
});

// Plain JavaScript run by the daemon's node before the CLI: at exit, how the daemon's bundle
// was loaded goes to the file named by the environment.
const probe = `
import { writeFileSync } from "node:fs";
process.on("exit", () => {
  writeFileSync(process.env.CODE_CACHE_PROBE_OUT, JSON.stringify(globalThis[Symbol.for("skein.daemonCodeCache")] ?? null));
});
`;

describe("a daemon started by `skein daemon run`", () => {
  const probePath = join(root, "probe.mjs");
  writeFileSync(probePath, probe);

  /** How a daemon started with `env` loaded its bundle, after it served a session. */
  async function loadOfADaemon(env: Record<string, string>): Promise<unknown> {
    const out = join(root, `state-${Math.random().toString(36).slice(2)}.json`);
    const app = await DaemonHarness.start({
      env: { NODE_OPTIONS: `--import=${probePath}`, CODE_CACHE_PROBE_OUT: out, ...env },
    });
    try {
      const session = await app.createSession();
      expect((await app.api(`/sessions/${session}`)).status).toBe(200);
      expect(await app.shutdown(10_000)).toBe(0);
    } finally {
      await app.close();
    }
    return JSON.parse(readFileSync(out, "utf8"));
  }

  it("runs its bundle from the code cache the build made", async () => {
    expect(await loadOfADaemon({})).toBe("accepted");
  });

  it("compiles its bundle from the source when its V8 flags are not the build's, and serves the same", async () => {
    expect(await loadOfADaemon({ SKEIN_V8_FLAGS: "none" })).toBe("rejected");
  });
});
