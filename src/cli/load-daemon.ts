/**
 * How `skein daemon run` loads the daemon: from `dist/daemon.bundle.cjs` (the daemon and its
 * dependencies in one file, made by `npm run build`, run with its V8 code cache: see
 * daemon-bundle.ts; it starts in about half the time) when it exists beside the compiled CLI,
 * otherwise from its modules (running from sources with tsx). The daemon's load-time V8 flags
 * are set first (`daemon-v8-flags.ts`), so its code is compiled under them; the caller sets the
 * others once the daemon serves.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadDaemonBundle } from "./daemon-bundle.js";
import { applyDaemonV8Flags } from "./daemon-v8-flags.js";

type DaemonModule = typeof import("../daemon/daemon.js");

/** The daemon module, bundled when a bundle was built, after setting the daemon's V8 flags. */
export async function loadDaemon(): Promise<DaemonModule> {
  applyDaemonV8Flags(process.env, "atLoad");
  const bundle = fileURLToPath(new URL("../daemon.bundle.cjs", import.meta.url));
  if (existsSync(bundle)) return loadDaemonBundle(bundle) as DaemonModule;
  return import("../daemon/daemon.js");
}
