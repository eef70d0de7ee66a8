/**
 * A node's copy of the cluster's shared config: read at start, read again on every NOTIFY of a
 * change (`LISTEN skein_config`) and every `pollMs` as the fallback, and laid over the node's
 * config.json (ProviderConfigSource.share). Changes made through this node are checked here
 * first, against the stored entries they will join and against this node's file, exactly as
 * config.json is checked, then written and put in force at once.
 *
 * Boundary rule: a shared config that does not check on this node (e.g. written by a newer
 * daemon) is logged and never used; the last good config stays in force and the node runs on.
 */
import type pg from "pg";
import { type ConfigEntry, checkSharedConfig } from "../../home/config-overlay.js";
import { ProviderConfigError } from "../../home/provider-config.js";
import type { ProviderConfigSource } from "../process/provider-config.js";
import type { SessionLogger } from "../session/session-services.js";
import {
  type ConfigChange,
  changeStoredConfig,
  configChannel,
  readStoredConfig,
  type StoredConfig,
  unreadableError,
} from "./cluster-config-store.js";
import type { WakeUpConnection, WakeUpSubscription } from "./wake-up-connection.js";

/** The shared config as this node holds it. */
export interface SharedConfigState {
  /** The version in force here (0: none written yet). */
  version: number;
  entries: readonly ConfigEntry[];
  /** Why a newer version is not in force here, or null. */
  error: string | null;
}

export class ClusterConfigFeed {
  readonly #pool: pg.Pool;
  readonly #providers: ProviderConfigSource;
  readonly #logger: SessionLogger;
  readonly #pollMs: number;
  #listening: WakeUpSubscription | null = null;
  #timer: NodeJS.Timeout | null = null;
  #state: SharedConfigState = { version: 0, entries: [], error: null };
  /** What is in force and what was refused here last (version and entries), so each is acted on once. */
  #inForce: string | null = null;
  #refused: string | null = null;
  #reading: Promise<void> | null = null;
  #again = false;
  #readFailed = false;

  constructor(pool: pg.Pool, providers: ProviderConfigSource, logger: SessionLogger, pollMs: number) {
    this.#pool = pool;
    this.#providers = providers;
    this.#logger = logger;
    this.#pollMs = pollMs;
  }

  /** Read the shared config, then follow its changes, told of them on `wakeUps` (throws when the database cannot be read now). */
  async start(wakeUps: WakeUpConnection): Promise<void> {
    // Listening before the first read: a change committed between the two would otherwise wait
    // for the next poll. A wake-up that overtakes the first read is harmless (older versions
    // are ignored).
    this.#listening = await wakeUps.subscribe(configChannel, () => void this.refresh());
    try {
      this.#apply(await readStoredConfig(this.#pool));
    } catch (error) {
      this.#listening.unsubscribe();
      this.#listening = null;
      throw error;
    }
    this.#timer = setInterval(() => void this.refresh(), this.#pollMs);
    this.#timer.unref();
  }

  /** The shared config in force here. */
  get state(): SharedConfigState {
    return this.#state;
  }

  /** Read the stored config again (calls while a read runs make one more read after it). */
  refresh(): Promise<void> {
    if (this.#reading !== null) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      do {
        this.#again = false;
        try {
          this.#apply(await readStoredConfig(this.#pool));
          if (this.#readFailed) this.#logger.info({}, "cluster config readable again");
          this.#readFailed = false;
        } catch (error) {
          if (!this.#readFailed)
            this.#logger.warn({ err: error }, "cannot read the cluster config; keeping the one in force");
          this.#readFailed = true;
        }
      } while (this.#again);
    })().finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /**
   * Change one entry: checked (alone, and over this node's config.json), written, announced and
   * in force here before it resolves. Throws ProviderConfigError for a config that does not
   * check, ConfigEntryMissingError for removing what is not there; nothing changes then.
   */
  async change(change: ConfigChange): Promise<StoredConfig> {
    const stored = await changeStoredConfig(this.#pool, change, (entries) => {
      checkSharedConfig(entries);
      this.#providers.withShared(entries);
    });
    this.#apply(stored);
    return stored;
  }

  /** Stop following changes. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#listening?.unsubscribe();
    this.#listening = null;
  }

  /** Put a stored config in force unless an as new one already is; a bad one is logged once. */
  #apply(stored: StoredConfig): void {
    // An older version is a read that a change through this node overtook.
    if (this.#inForce !== null && stored.version < this.#state.version) return;
    const seen = `${stored.version}\u0000${JSON.stringify(stored.entries)}\u0000${stored.unreadable ?? ""}`;
    if (seen === this.#inForce || seen === this.#refused) return;
    try {
      if (stored.unreadable !== undefined) throw unreadableError(stored.unreadable);
      checkSharedConfig(stored.entries);
      this.#providers.share(stored.entries);
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error;
      this.#refused = seen;
      this.#state = { ...this.#state, error: `version ${stored.version}: ${error.message}` };
      this.#logger.error(
        { err: error, version: stored.version },
        "cluster config not used; the last good one stays in force",
      );
      return;
    }
    if (stored.version > 0)
      this.#logger.info(
        { version: stored.version, entries: stored.entries.length },
        "cluster config in force",
      );
    this.#inForce = seen;
    this.#state = { version: stored.version, entries: stored.entries, error: null };
  }
}
