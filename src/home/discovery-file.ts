/**
 * `$SKEIN_HOME/daemon.json`: how clients find the running daemon. Its shape, and the one
 * reader both sides use.
 *
 * Boundary rule: reading and checking the file only; the daemon writes it atomically with mode
 * 0600 once its listener is up and removes it on a clean shutdown
 * (src/daemon/process/discovery-file.ts). It holds the bearer token.
 */
import { readFileSync } from "node:fs";
import { protocolVersion } from "../api/protocol.js";
import { homePaths } from "./home.js";

/** Content of daemon.json. */
export interface DiscoveryInfo {
  pid: number;
  port: number;
  token: string;
  version: typeof protocolVersion;
  instance_id: string;
  /**
   * Where `skein config` writes for this daemon: `database` when it runs on PostgreSQL (the
   * cluster's shared config, through its HTTP API), else the home's config.json. Absent from
   * older daemons' files: config.json.
   */
  config_source?: "file" | "database";
  /** The address a client on this machine connects to; absent: 127.0.0.1. */
  host?: string;
  /** The daemon serves HTTPS with the certificate in this PEM file (SKEIN_TLS_CERT); absent: HTTP. */
  tls_cert?: string;
  /** The features the daemon announces, as `GET /server`'s `capabilities`; absent from older daemons' files. */
  capabilities?: Record<string, number>;
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
  const info: DiscoveryInfo = {
    pid: pid as number,
    port: port as number,
    token,
    version: protocolVersion,
    instance_id,
  };
  if (record.config_source === "database" || record.config_source === "file")
    info.config_source = record.config_source;
  if (typeof record.host === "string" && record.host !== "") info.host = record.host;
  if (typeof record.tls_cert === "string" && record.tls_cert !== "") info.tls_cert = record.tls_cert;
  const announced = capabilitiesOf(record.capabilities);
  if (announced !== undefined) info.capabilities = announced;
  return info;
}

/** The capabilities a daemon.json announces: the entries that are whole numbers (others are left out). */
function capabilitiesOf(value: unknown): Record<string, number> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const announced: Record<string, number> = {};
  for (const [name, version] of Object.entries(value)) {
    if (Number.isSafeInteger(version)) announced[name] = version as number;
  }
  return announced;
}
