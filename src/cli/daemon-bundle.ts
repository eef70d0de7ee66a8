/**
 * The daemon's bundle (`dist/daemon.bundle.cjs`, made by `npm run build`), run with the V8 code
 * cache the build made of it (`dist/daemon.bundle.cjs.code-cache`).
 *
 * Why: V8 parsed the whole 5 MB bundle at every daemon start before running a line of it (about
 * 80 ms, the largest part of loading it). With the cache V8 takes the bundle's compiled top level
 * and the functions its loading ran from the cache and parses nothing up front; any other
 * function is compiled from the source when first called, as before. Node.js 20 offers a code
 * cache only to scripts compiled through `vm` (not to ES modules), so the bundle is CommonJS,
 * wrapped and compiled here. The same wrapping makes the cache at build time
 * (`makeDaemonCodeCache`), so the source V8 checks the cache against is the same text.
 *
 * V8 refuses a cache made by another V8 version or under other V8 flags (such as
 * SKEIN_V8_FLAGS, or node flags given to the daemon) and then compiles from the source: the
 * daemon starts as it did without one. It checks the source only by its length, so the cache is
 * used only with the bundle it was made from: the build ends the bundle with a line naming its
 * content's SHA-256 (`// skein-bundle <16 hex digits>`), and the cache file carries that id.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { Script } from "node:vm";

/** Whether a daemon's bundle ran from its code cache: taken, refused by V8, or not there. */
type DaemonCodeCacheState = "accepted" | "rejected" | "absent";

/** Where the state of this process's load is recorded, for a look from outside (tests, a debugger). */
const stateKey = Symbol.for("skein.daemonCodeCache");

/**
 * The parameters the bundle's text is wrapped in: CommonJS's five, and the bundle's own file URL
 * (the build maps `import.meta.url` of the daemon's sources to it).
 */
const wrapperStart = "(function (exports, require, module, __filename, __dirname, __skeinBundleUrl) {";
const wrapperEnd = "\n})";

type BundleFunction = (
  exports: object,
  require: NodeJS.Require,
  module: { exports: object },
  filename: string,
  dirname: string,
  bundleUrl: string,
) => void;

/** The line the build ends the bundle with, before the id. */
export const BUNDLE_ID_MARK = "// skein-bundle ";

/** The id the bundle's last line names (null when it names none). */
export function bundleIdOf(source: string): string | null {
  const at = source.lastIndexOf(BUNDLE_ID_MARK);
  if (at < 0) return null;
  const id = source.slice(at + BUNDLE_ID_MARK.length).trim();
  return /^[0-9a-f]{16}$/.test(id) ? id : null;
}

/** The code cache's file for a bundle at `bundle` whose id is `id`. */
export function daemonCodeCacheFile(bundle: string, id: string): string {
  return `${bundle}.${id}.code-cache`;
}

/** The bundle's text: the build leaves only ASCII in it, so Latin-1 reads it without a UTF-8 decode. */
function bundleSource(bundle: string): string {
  return readFileSync(bundle, "latin1");
}

/** The bundle's text compiled (with `cachedData` when given), not yet run. */
function compileBundle(bundle: string, source: string, cachedData?: Buffer): Script {
  return new Script(`${wrapperStart}${source}${wrapperEnd}`, {
    filename: bundle,
    ...(cachedData === undefined ? {} : { cachedData }),
  });
}

/** Runs a compiled bundle's top level; returns its exports. */
function runBundle(script: Script, bundle: string): object {
  const module = { exports: {} };
  const run = script.runInThisContext() as BundleFunction;
  run(
    module.exports,
    createRequire(bundle),
    module,
    bundle,
    path.dirname(bundle),
    pathToFileURL(bundle).href,
  );
  return module.exports;
}

function cacheOf(bundle: string, source: string): Buffer | undefined {
  const id = bundleIdOf(source);
  if (id === null) return undefined;
  try {
    return readFileSync(daemonCodeCacheFile(bundle, id));
  } catch {
    return undefined;
  }
}

/** Loads the daemon's bundle at `bundle` (with its code cache when there is one); returns its exports. */
export function loadDaemonBundle(bundle: string): object {
  const source = bundleSource(bundle);
  const cachedData = cacheOf(bundle, source);
  const script = compileBundle(bundle, source, cachedData);
  const state: DaemonCodeCacheState =
    cachedData === undefined ? "absent" : script.cachedDataRejected === true ? "rejected" : "accepted";
  Object.defineProperty(globalThis, stateKey, { value: state, configurable: true });
  return runBundle(script, bundle);
}

/**
 * Makes the bundle's code cache (build time): compiles and loads the bundle in this process, whose
 * V8 flags must be the daemon's at load, and writes what V8 compiled meanwhile. Returns the
 * file written and its size.
 */
export function makeDaemonCodeCache(bundle: string): { file: string; bytes: number } {
  const source = bundleSource(bundle);
  const id = bundleIdOf(source);
  if (id === null) throw new Error(`${bundle} does not end with its id (${BUNDLE_ID_MARK}<id>)`);
  const script = compileBundle(bundle, source);
  runBundle(script, bundle);
  const data = script.createCachedData();
  const file = daemonCodeCacheFile(bundle, id);
  writeFileSync(file, data);
  return { file, bytes: data.length };
}
