/**
 * `$SKEIN_HOME/daemon.json`: how clients find the running daemon.
 *
 * Boundary rule: the file's shape and its atomic replacement live here; the daemon writes it
 * once its listener is up and removes it on a clean shutdown, clients (the CLI) only read it.
 * It holds the bearer token, so it is written with mode 0600.
 */
import { readFileSync } from "node:fs";
import { unlink } from "node:fs/promises";
import { syncDirectory, writeFileAtomic } from "./atomic-file.js";
import { homePaths } from "./home.js";

/** The protocol version written to daemon.json and returned by GET /server. */
export const protocolVersion = 3;

/** Content of daemon.json. */
export interface DiscoveryInfo {
  pid: number;
  port: number;
  token: string;
  version: typeof protocolVersion;
  instance_id: string;
}

/** daemon.json exists but cannot be read or does not have the expected shape. */
export class DiscoveryFileError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot read daemon discovery file ${path}: ${reason}`, options);
    this.name = "DiscoveryFileError";
  }
}

/** Atomically publish daemon.json (mode 0600) in `home`. */
export async function writeDiscoveryFile(home: string, info: DiscoveryInfo): Promise<void> {
  await writeFileAtomic(homePaths(home).discovery, `${JSON.stringify(info)}\n`, 0o600);
}

/** Read daemon.json from `home`; null when there is none. Throws DiscoveryFileError if malformed. */
export function readDiscoveryFile(home: string): DiscoveryInfo | null {
  const path = homePaths(home).discovery;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new DiscoveryFileError(path, (error as Error).message, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new DiscoveryFileError(path, "it is not valid JSON", { cause: error });
  }
  return checkDiscoveryInfo(path, parsed);
}

/** Remove daemon.json only if it still names this daemon (a successor may have replaced it). */
export async function removeDiscoveryFile(
  home: string,
  owner: { pid: number; instance_id: string },
): Promise<boolean> {
  let current: DiscoveryInfo | null;
  try {
    current = readDiscoveryFile(home);
  } catch {
    return false;
  }
  if (current === null || current.pid !== owner.pid || current.instance_id !== owner.instance_id)
    return false;
  try {
    await unlink(homePaths(home).discovery);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  await syncDirectory(home);
  return true;
}

function checkDiscoveryInfo(path: string, value: unknown): DiscoveryInfo {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DiscoveryFileError(path, "expected a JSON object");
  }
  const record = value as Record<string, unknown>;
  const { pid, port, token, version, instance_id } = record;
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) throw new DiscoveryFileError(path, "bad pid");
  if (!Number.isSafeInteger(port) || (port as number) < 1 || (port as number) > 65_535) {
    throw new DiscoveryFileError(path, "bad port");
  }
  if (typeof token !== "string" || token.length === 0) throw new DiscoveryFileError(path, "bad token");
  if (version !== protocolVersion) {
    throw new DiscoveryFileError(path, `protocol version ${String(version)} is not ${protocolVersion}`);
  }
  if (typeof instance_id !== "string" || instance_id.length === 0) {
    throw new DiscoveryFileError(path, "bad instance_id");
  }
  return { pid: pid as number, port: port as number, token, version: protocolVersion, instance_id };
}
