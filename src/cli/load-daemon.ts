/**
 * How `skein daemon run` loads the daemon: from `dist/daemon.bundle.js` (the daemon and its
 * dependencies in one file, made by `npm run build`; it starts in about half the time) when it
 * exists beside the compiled CLI, otherwise from its modules (running from sources with tsx).
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

type DaemonModule = typeof import("../daemon/daemon.js");

/** The daemon module, bundled when a bundle was built. */
export async function loadDaemon(): Promise<DaemonModule> {
  const bundle = new URL("../daemon.bundle.js", import.meta.url);
  if (existsSync(fileURLToPath(bundle))) return (await import(bundle.href)) as DaemonModule;
  return import("../daemon/daemon.js");
}
