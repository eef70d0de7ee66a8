/**
 * Finding the daemon of a home: `$SKEIN_HOME` (default `~/.skein`) and its `daemon.json`
 * `{pid, port, token, version, instance_id}`.
 *
 * Boundary rule: reads files only, never connects. The file's format is part of the public
 * contract (spec §1); its reader is shared with the daemon that writes it.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { type DiscoveryInfo, readDiscoveryFile } from "../../daemon/process/discovery-file.js";

export type { DiscoveryInfo };

/** Where a client sends its requests. */
export interface DaemonEndpoint {
  port: number;
  token: string;
  /** Loopback host the daemon listens on. */
  host?: string;
}

/** The home a command works on: SKEIN_HOME resolved like the daemon resolves it, else ~/.skein. */
export function skeinHome(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const raw = env.SKEIN_HOME;
  if (raw === undefined || raw === "") return join(homedir(), ".skein");
  const expanded = raw === "~" ? homedir() : raw.startsWith("~/") ? join(homedir(), raw.slice(2)) : raw;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The daemon.json of `home`, or null when there is none; throws when it is malformed. */
export function readDaemonInfo(home: string): DiscoveryInfo | null {
  return readDiscoveryFile(home);
}

/** The log file an auto-started daemon writes to. */
export function daemonLogPath(home: string): string {
  return join(home, "daemon.log");
}

/** The provider config file of `home`. */
export function providerConfigPath(home: string): string {
  return join(home, "config.json");
}
