/**
 * The Skein home ($SKEIN_HOME, default ~/.skein): how its path is resolved and what its files
 * are called. The daemon and its clients find each other through it.
 *
 * Boundary rule: names and path arithmetic only; creating and securing the folder is the
 * daemon's (src/daemon/process/home.ts), each file is read and written by its owner.
 */
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";

/** The home's folder name under the user's home directory when SKEIN_HOME is not set. */
export const defaultHomeName = ".skein";

/** Absolute paths of the files kept in a home. */
export interface HomePaths {
  home: string;
  /** SQLite file the daemon holds exclusively for its life (one daemon per home). */
  lock: string;
  /** `daemon.json`: how clients find the daemon (pid, port, token, version, instance id). */
  discovery: string;
  /** `daemon.port`: the port a daemon chose once, kept across clean restarts (daemon.json is removed then). */
  port: string;
  /** `config.json`: the provider profiles. */
  config: string;
  /** Default SQLite database (SKEIN_DB overrides it). */
  database: string;
  /** Ed25519 private key that signs each session's recorded head (PKCS#8 PEM, 0600). */
  signingKey: string;
  /**
   * `head-signing.json`: since when every head must be signed, and the keys pinned when an older
   * home started requiring it (0600; see daemon/process/head-trust.ts).
   */
  headSigning: string;
  /** Where a daemon started in the background writes its output. */
  log: string;
  /** Browser logins (digests of their cookies, 0600), so a signed-in page survives a restart. */
  logins: string;
  /** `secrets.json`: API keys stored by `skein auth set`, per profile (0600; see secrets-file.ts). */
  secrets: string;
}

/** The file paths inside `home`. */
export function homePaths(home: string): HomePaths {
  return {
    home,
    lock: join(home, "daemon.lock"),
    discovery: join(home, "daemon.json"),
    port: join(home, "daemon.port"),
    config: join(home, "config.json"),
    database: join(home, "skein.sqlite"),
    signingKey: join(home, "head-signing-key.pem"),
    headSigning: join(home, "head-signing.json"),
    log: join(home, "daemon.log"),
    logins: join(home, "web-logins.json"),
    secrets: join(home, "secrets.json"),
  };
}

/**
 * An absolute path from a path as a user wrote it in a variable: a leading `~` is the user's
 * home directory (a quoted "~/x" reaches a program unexpanded), a relative one is resolved
 * against `cwd`.
 */
export function resolveUserPath(raw: string, cwd: string = process.cwd()): string {
  const expanded = raw === "~" ? homedir() : raw.startsWith("~/") ? join(homedir(), raw.slice(2)) : raw;
  return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
}

/** The home named by SKEIN_HOME (an empty value counts as unset), else ~/.skein. */
export function skeinHome(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  const raw = env.SKEIN_HOME;
  return raw === undefined || raw === "" ? join(homedir(), defaultHomeName) : resolveUserPath(raw, cwd);
}
