/**
 * The daemon's home folder ($SKEIN_HOME): creating and securing it. Its path and the names of
 * its files are the contract's (src/home/home.ts).
 *
 * Boundary rule: this file creates and secures the folder; it never reads or writes the files
 * inside it (their owners do: home-lock.ts, discovery-file.ts, provider-config.ts, storage).
 * The folder holds the bearer token and API keys, so it must be private to its owner: it is
 * created 0700, a looser existing one is tightened, and one owned by another user is refused.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { type HomePaths, homePaths } from "../../home/home.js";

/** The home cannot be used: not a directory, owned by someone else, or not creatable. */
export class HomeError extends Error {
  constructor(
    readonly home: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot use Skein home ${home}: ${reason}`, options);
    this.name = "HomeError";
  }
}

/** Create `home` (mode 0700) or check and tighten an existing one; returns its paths. */
export function ensureHome(home: string): HomePaths {
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
  } catch (error) {
    // EEXIST: something that is not a directory is in the way; the check below names it.
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
      throw new HomeError(home, `it cannot be created (${describe(error)})`, { cause: error });
    }
  }
  const stats = statSync(home);
  if (!stats.isDirectory()) throw new HomeError(home, "it is not a directory");
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid) {
    throw new HomeError(home, `it is owned by uid ${stats.uid}, not by this user (uid ${uid})`);
  }
  if ((stats.mode & 0o777) !== 0o700) {
    try {
      chmodSync(home, 0o700);
    } catch (error) {
      throw new HomeError(home, `its mode cannot be set to 0700 (${describe(error)})`, { cause: error });
    }
  }
  return homePaths(home);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
