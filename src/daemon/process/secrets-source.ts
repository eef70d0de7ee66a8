/**
 * The daemon's view of `$SKEIN_HOME/secrets.json`: the API keys `skein auth set` stored, re-read
 * when the file changes, so a daemon started earlier uses a key stored later without a restart.
 *
 * Boundary rule: reading only; the format is the contract's (src/home/secrets-file.ts). A
 * missing file holds no keys; a broken file holds none either (a key is never guessed from a
 * half-written file) and is exposed as `lastError` until it is fixed.
 */
import { homePaths } from "../../home/home.js";
import { readSecretsFile, type SecretsFile, SecretsFileError } from "../../home/secrets-file.js";
import { StampCheck } from "./file-stamp.js";

const noSecrets: SecretsFile = Object.freeze({ apiKeys: Object.freeze({}) });

/** The current secrets of a home, re-read when the file changes. */
export class SecretsSource {
  readonly path: string;
  private secrets: SecretsFile = noSecrets;
  private seen: string | null = null;
  private readonly stamp: StampCheck;
  private error: SecretsFileError | null = null;

  constructor(private readonly home: string) {
    this.path = homePaths(home).secrets;
    this.stamp = new StampCheck(this.path);
  }

  /**
   * The secrets as of now; cheap when the file has not changed (one stat per event-loop
   * iteration and HTTP request, file-stamp.ts). A new object after
   * each change, so callers may key caches on it.
   */
  current(): SecretsFile {
    this.refresh();
    return this.secrets;
  }

  /** Why the file on disk holds no usable keys, or null when it is fine (or absent). */
  get lastError(): SecretsFileError | null {
    this.refresh();
    return this.error;
  }

  private refresh(): void {
    let stamp: string;
    try {
      stamp = this.stamp.now();
    } catch (error) {
      stamp = `error:${String(error)}`;
    }
    if (stamp === this.seen) return;
    this.seen = stamp;
    try {
      this.secrets = Object.freeze(readSecretsFile(this.home));
      this.error = null;
    } catch (error) {
      this.secrets = noSecrets;
      this.error =
        error instanceof SecretsFileError
          ? error
          : new SecretsFileError(this.path, (error as Error).message, { cause: error });
    }
  }
}
