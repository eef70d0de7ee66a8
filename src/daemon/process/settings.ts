/**
 * Daemon settings from the environment.
 *
 * Boundary rule: this file only reads and validates variables; it touches no file and opens no
 * socket. Every invalid value is a `SettingsError` naming the variable, so `skein daemon run`
 * can print one clear line and exit non-zero.
 *
 * Variables: SKEIN_HOME, SKEIN_LISTEN (or SKEIN_HOST and SKEIN_PORT), SKEIN_TLS_CERT, SKEIN_TLS_KEY,
 * SKEIN_TRUST_PROXY, SKEIN_TOKEN, SKEIN_DB (a SQLite path or a postgres:// URL), SKEIN_INSPECT, SKEIN_UNLOAD_SECONDS,
 * SKEIN_HOST, SKEIN_ALLOW_NON_LOOPBACK, SKEIN_PUBLIC_URLS, for a cluster SKEIN_NODE_URL, SKEIN_LEASE_SECONDS and
 * SKEIN_NODE_HISTORY_SECONDS, and for benchmarks only
 * SKEIN_TEST_COMMIT_DELAY_MS, SKEIN_TEST_COMMIT_DELAY_BLOCKING and SKEIN_TEST_COUNT_STATEMENTS. The listen address must be a loopback address
 * (127.0.0.0/8 or ::1) unless TLS is configured, a reverse proxy is trusted, or
 * SKEIN_ALLOW_NON_LOOPBACK=1 (listen-settings.ts). An empty variable counts as unset.
 */
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { homePaths, resolveUserPath, skeinHome } from "../../home/home.js";
import type { SlowDisk } from "../../log/wal-sync.js";
import {
  checkExposure,
  type ListenSettings,
  readListen,
  readTlsPaths,
  readTrustProxy,
  type TlsPaths,
} from "./listen-settings.js";
import { checkNodeUrl, readNodeUrl, readPublicUrls } from "./node-address.js";
import { SettingsError } from "./settings-error.js";

export { SettingsError } from "./settings-error.js";

/** Everything the daemon takes from its environment, validated and with defaults applied. */
export interface DaemonSettings {
  /** Absolute path of the data folder. */
  home: string;
  /** 0 = choose a port (reuse the previous one when free). */
  port: number;
  token: string;
  /** True when the token was generated for this start (SKEIN_TOKEN unset). */
  tokenGenerated: boolean;
  /** Absolute path of the SQLite database (when `database` is SQLite; else the home's default, unused). */
  dbPath: string;
  /** Where the daemon keeps its state: SKEIN_DB as a SQLite path, or a postgres:// URL. */
  database: DatabaseTarget;
  /** SKEIN_INSPECT=1: the /debug routes are enabled. */
  inspect: boolean;
  /** Idle session actors are unloaded after this many seconds (1..604800). */
  unloadSeconds: number;
  /** Bind address (an IP literal). */
  host: string;
  /** SKEIN_TLS_CERT and SKEIN_TLS_KEY: serve HTTPS; null: plain HTTP. */
  tls: TlsPaths | null;
  /** SKEIN_TRUST_PROXY: the reverse proxies whose `X-Forwarded-For` is believed. */
  trustProxy: string[];
  /** SKEIN_ALLOW_NON_LOOPBACK=1 was given. */
  allowNonLoopback: boolean;
  /**
   * How other nodes of a cluster reach this one (SKEIN_NODE_URL, http or https); null: the
   * listen address (loopback for a wildcard one) and the port.
   */
  nodeUrl: string | null;
  /** URLs that reach this daemon through a reverse proxy (SKEIN_PUBLIC_URLS): accepted Host values and origins. */
  publicUrls: string[];
  /** Session lease length in a cluster (SKEIN_LEASE_SECONDS, default 10). */
  leaseSeconds: number;
  /** How long GET /cluster still lists a node that stopped or went silent (SKEIN_NODE_HISTORY_SECONDS, default 600). */
  nodeHistorySeconds: number;
  /**
   * Test-only (SKEIN_TEST_COMMIT_DELAY_MS, SKEIN_TEST_COMMIT_DELAY_BLOCKING=1): every flush of the
   * SQLite log takes this much longer, off the main thread or blocking it; null: none.
   */
  slowDisk: SlowDisk | null;
  /** The SQLite checkpoint worker starts each new write-ahead log (SKEIN_SQLITE_WORKER_STARTS_LOGS=1; off by default). */
  workerStartsLogs: boolean;
  /** A port serving GET /metrics without the token, on `host` (SKEIN_METRICS_PORT); null: none. */
  metricsPort: number | null;
  /** Test-only (SKEIN_TEST_COUNT_STATEMENTS=1): count the SQLite statements run and log pages written, for the stop log line. */
  countStatements: boolean;
}

/** Default SKEIN_LEASE_SECONDS. */
const defaultLeaseSeconds = 10;

/** The daemon's database: an embedded SQLite file, or a PostgreSQL database shared by a cluster. */
type DatabaseTarget = { kind: "sqlite"; path: string } | { kind: "postgres"; url: string };

/** Lowest accepted length of a caller-chosen SKEIN_TOKEN. */
const minTokenLength = 16;
/** Default SKEIN_UNLOAD_SECONDS. */
const defaultUnloadSeconds = 3600;
const maxUnloadSeconds = 604_800;

/** Read and validate the daemon settings from `env`. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): DaemonSettings {
  const home = readHome(env);
  const generatedToken = value(env, "SKEIN_TOKEN") === undefined;
  const listen = readListenSettings(env);
  const host = listen.host;
  const allowNonLoopback = readFlag(env, "SKEIN_ALLOW_NON_LOOPBACK");
  const variable = value(env, "SKEIN_LISTEN") === undefined ? "SKEIN_HOST" : "SKEIN_LISTEN";
  checkExposure(listen, variable, isLoopbackAddress(host), allowNonLoopback);
  const database = readDatabase(env, home);
  const nodeUrl = readNodeUrl(value(env, "SKEIN_NODE_URL"));
  checkNodeUrl(nodeUrl, host, isLoopbackAddress(host));
  return {
    home,
    port: listen.port,
    token: readToken(env),
    tokenGenerated: generatedToken,
    dbPath: database.kind === "sqlite" ? database.path : homePaths(home).database,
    database,
    inspect: readFlag(env, "SKEIN_INSPECT"),
    unloadSeconds: readUnloadSeconds(env),
    host,
    tls: listen.tls,
    trustProxy: listen.trustProxy,
    allowNonLoopback,
    nodeUrl,
    publicUrls: readPublicUrls(value(env, "SKEIN_PUBLIC_URLS")),
    leaseSeconds: readWholeNumber(env, "SKEIN_LEASE_SECONDS"),
    nodeHistorySeconds: readWholeNumber(env, "SKEIN_NODE_HISTORY_SECONDS"),
    slowDisk: readSlowDisk(env),
    workerStartsLogs: readFlag(env, "SKEIN_SQLITE_WORKER_STARTS_LOGS"),
    metricsPort:
      value(env, "SKEIN_METRICS_PORT") === undefined ? null : readWholeNumber(env, "SKEIN_METRICS_PORT"),
    countStatements: readFlag(env, "SKEIN_TEST_COUNT_STATEMENTS"),
  };
}

function readSlowDisk(env: NodeJS.ProcessEnv): SlowDisk | null {
  const raw = value(env, "SKEIN_TEST_COMMIT_DELAY_MS");
  const blocking = readFlag(env, "SKEIN_TEST_COMMIT_DELAY_BLOCKING");
  if (raw === undefined) return null;
  if (!/^\d{1,4}$/.test(raw)) {
    throw new SettingsError(
      "SKEIN_TEST_COMMIT_DELAY_MS",
      raw,
      "expected a whole number of milliseconds (0 to 9999)",
    );
  }
  return { delayMs: Number(raw), blocking };
}

/** The whole-number settings: default, least and greatest value, and what a bad value is told. */
const wholeNumberSettings = {
  SKEIN_PORT: [0, 0, 65_535, "expected an integer from 0 to 65535 (0 = choose a free port)"],
  SKEIN_METRICS_PORT: [0, 1, 65_535, "expected a port from 1 to 65535"],
  SKEIN_LEASE_SECONDS: [defaultLeaseSeconds, 1, 3600, "expected a whole number of seconds from 1 to 3600"],
  SKEIN_NODE_HISTORY_SECONDS: [
    600,
    0,
    2_592_000,
    "expected a whole number of seconds from 0 to 2592000 (30 days)",
  ],
} as const satisfies Record<string, readonly [fallback: number, min: number, max: number, expected: string]>;

/**
 * A whole-number setting from min to max, or its default when unset. At most as many digits as
 * `max` has, so a long run of leading zeros is refused like any other malformed number.
 */
function readWholeNumber(env: NodeJS.ProcessEnv, name: keyof typeof wholeNumberSettings): number {
  const [fallback, min, max, expected] = wholeNumberSettings[name];
  const raw = value(env, name);
  if (raw === undefined) return fallback;
  const digits = new RegExp(`^\\d{1,${String(max).length}}$`);
  if (!digits.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new SettingsError(name, raw, expected);
  }
  return Number(raw);
}

/** True for 127.0.0.0/8, ::1 and the IPv4-mapped form of a 127/8 address. */
export function isLoopbackAddress(address: string): boolean {
  const kind = isIP(address);
  if (kind === 4) return address.startsWith("127.");
  if (kind === 6) {
    const lower = address.toLowerCase();
    if (lower === "::1" || lower === "0:0:0:0:0:0:0:1") return true;
    return lower.startsWith("::ffff:127.");
  }
  return false;
}

function value(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === "" ? undefined : raw;
}

// Resolved as every client resolves SKEIN_HOME (src/home/home.ts), so both find the same daemon.json.
function readHome(env: NodeJS.ProcessEnv): string {
  return readPath(env, "SKEIN_HOME") ?? skeinHome({});
}

function readPath(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = value(env, name);
  if (raw === undefined) return undefined;
  if (raw.includes("\0")) throw new SettingsError(name, raw, "a path cannot contain a NUL byte");
  return resolveUserPath(raw);
}

// A postgres:// or postgresql:// URL selects PostgreSQL; anything else is a SQLite path.
function readDatabase(env: NodeJS.ProcessEnv, home: string): DatabaseTarget {
  const raw = value(env, "SKEIN_DB");
  if (raw !== undefined && /^postgres(ql)?:\/\//i.test(raw)) {
    try {
      new URL(raw);
    } catch {
      throw new SettingsError("SKEIN_DB", null, "it is not a valid postgres:// URL");
    }
    return { kind: "postgres", url: raw };
  }
  return { kind: "sqlite", path: readPath(env, "SKEIN_DB") ?? homePaths(home).database };
}

function readToken(env: NodeJS.ProcessEnv): string {
  const raw = value(env, "SKEIN_TOKEN");
  if (raw === undefined) return randomBytes(32).toString("hex");
  if (raw.length < minTokenLength) {
    throw new SettingsError("SKEIN_TOKEN", null, `it must be at least ${minTokenLength} characters long`);
  }
  // The token is sent in an Authorization header: only visible ASCII survives that unchanged.
  if (!/^[\x21-\x7e]+$/.test(raw)) {
    throw new SettingsError(
      "SKEIN_TOKEN",
      null,
      "it may only contain visible ASCII characters (no spaces or control characters)",
    );
  }
  return raw;
}

function readFlag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = value(env, name);
  if (raw === undefined || raw === "0") return false;
  if (raw === "1") return true;
  throw new SettingsError(name, raw, "expected 1 (enabled) or 0 (disabled)");
}

function readUnloadSeconds(env: NodeJS.ProcessEnv): number {
  const raw = value(env, "SKEIN_UNLOAD_SECONDS");
  if (raw === undefined) return defaultUnloadSeconds;
  if (!/^-?\d{1,16}$/.test(raw)) {
    throw new SettingsError("SKEIN_UNLOAD_SECONDS", raw, "expected a whole number of seconds");
  }
  return Math.min(maxUnloadSeconds, Math.max(1, Number(raw)));
}

// SKEIN_LISTEN, or SKEIN_HOST and SKEIN_PORT (not both ways at once); TLS and trusted proxies.
function readListenSettings(env: NodeJS.ProcessEnv): ListenSettings {
  const listen = readListen(value(env, "SKEIN_LISTEN"));
  if (listen !== null && (value(env, "SKEIN_HOST") !== undefined || value(env, "SKEIN_PORT") !== undefined)) {
    throw new SettingsError(
      "SKEIN_LISTEN",
      value(env, "SKEIN_LISTEN") ?? null,
      "give SKEIN_LISTEN or SKEIN_HOST and SKEIN_PORT, not both",
    );
  }
  return {
    host: listen?.host ?? readHost(env),
    port: listen?.port ?? readWholeNumber(env, "SKEIN_PORT"),
    tls: readTlsPaths(readPath(env, "SKEIN_TLS_CERT"), readPath(env, "SKEIN_TLS_KEY")),
    trustProxy: readTrustProxy(value(env, "SKEIN_TRUST_PROXY")),
  };
}

function readHost(env: NodeJS.ProcessEnv): string {
  const raw = value(env, "SKEIN_HOST");
  if (raw === undefined) return "127.0.0.1";
  if (isIP(raw) === 0) {
    throw new SettingsError("SKEIN_HOST", raw, "expected an IP address such as 127.0.0.1 or ::1");
  }
  return raw;
}
