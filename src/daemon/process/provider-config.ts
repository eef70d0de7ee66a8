/**
 * The daemon's view of `$SKEIN_HOME/config.json`: the provider profiles in use now.
 *
 * Boundary rule: this file keeps the current config and resolves profiles; the file's format,
 * parser and writer are the contract's (src/home/provider-config.ts), and it never talks to a
 * provider (src/providers does, given a profile). The file is re-read when its mtime or size
 * changes, so a profile added by `skein config add` is usable without a restart. A missing file
 * means "no providers" (the daemon still starts; turns fail with a NoProviderError that says how
 * to add one). A broken file never replaces a good one: the last good config stays in use and
 * the problem is exposed as `lastError` until the file is fixed. The file is stat'ed at most once
 * per event-loop iteration and HTTP request (file-stamp.ts's `StampCheck`). On a cluster the database's
 * shared entries are laid over the file (`share`, home/config-overlay.ts); the whole is checked
 * again whenever either changes, and a whole that fails keeps the last good config likewise.
 */
import { readFileSync } from "node:fs";
import { type ConfigEntry, mergeSharedConfig } from "../../home/config-overlay.js";
import { homePaths } from "../../home/home.js";
import {
  type ProviderConfig,
  ProviderConfigError,
  type ProviderProfile,
  parseProviderConfig,
  type SessionSettings,
  splitProfile,
} from "../../home/provider-config.js";
import type { TurnSettings } from "../session/session-services.js";
import { StampCheck } from "./file-stamp.js";

/** A profile together with its name, and what it sets for its sessions. */
export interface NamedProfile {
  name: string;
  profile: ProviderProfile;
  settings: SessionSettings;
}

/** No usable provider profile for a request; the message says how to configure one. */
export class NoProviderError extends Error {
  constructor(
    readonly configPath: string,
    /** The profile that was asked for; null = the active one. */
    readonly requested: string | null,
    readonly available: readonly string[],
  ) {
    const what =
      requested !== null
        ? `provider profile "${requested}" is not configured${available.length > 0 ? ` (configured: ${available.join(", ")})` : ""}`
        : available.length === 0
          ? "no provider is configured"
          : `no active provider profile is set (configured: ${available.join(", ")})`;
    super(
      `${what}. Add one with \`skein config add <name> --protocol chat_completions --base-url <url> --model <model>\` ` +
        `or write ${configPath} as {"active":"<name>","providers":{"<name>":{"protocol":"chat_completions"|"responses"|"anthropic"|"gemini","baseUrl":"https://...","apiKey":"..." or "apiKeyEnv":"ENV_VAR","model":"..."}}}`,
    );
    this.name = "NoProviderError";
  }
}

const emptyConfig: ProviderConfig = Object.freeze({ providers: Object.freeze({}) }) as ProviderConfig;

/** The current provider config of a home, re-read when the file changes. */
export class ProviderConfigSource {
  readonly path: string;
  private config: ProviderConfig = emptyConfig;
  /** config.json alone, as last read well. */
  private fileConfig: ProviderConfig = emptyConfig;
  private seen: string | null = null;
  private readonly stamp: StampCheck;
  private error: ProviderConfigError | null = null;
  private fileError: ProviderConfigError | null = null;
  /** The shared entries laid over the file (null: none, off a cluster). */
  private shared: readonly ConfigEntry[] | null = null;

  constructor(home: string) {
    this.path = homePaths(home).config;
    this.stamp = new StampCheck(this.path);
  }

  /** The config as of now; cheap when the file has not changed (one stat per event-loop iteration). */
  current(): ProviderConfig {
    this.refresh();
    return this.config;
  }

  /**
   * Lay the cluster's shared entries over the file from now on; throws ProviderConfigError,
   * keeping the config in force, when the file and the entries together are not valid.
   */
  share(entries: readonly ConfigEntry[]): void {
    this.refresh();
    const merged = mergeSharedConfig(this.fileConfig, entries);
    this.shared = entries;
    this.config = merged;
    this.error = this.fileError;
  }

  /** The config a change of the shared entries would put in force here; throws ProviderConfigError. */
  withShared(entries: readonly ConfigEntry[]): ProviderConfig {
    this.refresh();
    return mergeSharedConfig(this.fileConfig, entries);
  }

  /** Why the file on disk is not in use, or null when it is (or is absent). */
  get lastError(): ProviderConfigError | null {
    this.refresh();
    return this.error;
  }

  /** The named profile, or the active one for null; throws NoProviderError. */
  resolveProfile(name: string | null): NamedProfile {
    return this.profileIn(this.current(), name);
  }

  /** `resolveProfile` on a config already read (one stat of the file per caller, not two). */
  private profileIn(config: ProviderConfig, name: string | null): NamedProfile {
    const wanted = name ?? config.active ?? null;
    if (wanted !== null && Object.hasOwn(config.providers, wanted)) {
      const { provider, settings } = splitProfile(config.providers[wanted]!);
      return { name: wanted, profile: provider, settings };
    }
    // `active` is validated to name a profile, so only an unknown name or no active one lands here.
    throw new NoProviderError(this.path, name, Object.keys(config.providers));
  }

  /**
   * What config.json sets for the turns of a session of this profile (null: the active one):
   * the top-level and the profile's approval policies, and the tool-round cap (the profile's,
   * else the top level's, else none; a profile's null lifts the top level's). A profile that is
   * gone sets nothing.
   */
  turnSettings(profileName: string | null): TurnSettings {
    const config = this.current();
    let profile: SessionSettings = {};
    try {
      profile = this.profileIn(config, profileName).settings;
    } catch (error) {
      if (!(error instanceof NoProviderError)) throw error;
    }
    return {
      configPolicy: config.approvalPolicy,
      profilePolicy: profile.approvalPolicy,
      maxToolRounds:
        profile.maxToolRounds !== undefined ? profile.maxToolRounds : (config.maxToolRounds ?? null),
      budgets: config.budgets,
      onUnknownOutcome: config.onUnknownOutcome,
    };
  }

  private refresh(): void {
    let stamp: string;
    try {
      stamp = this.stamp.now();
    } catch (error) {
      this.error = new ProviderConfigError(this.path, (error as Error).message, { cause: error });
      return;
    }
    if (stamp === this.seen) return;
    this.seen = stamp;
    try {
      this.fileConfig =
        stamp === "absent" ? emptyConfig : parseProviderConfig(readFileSync(this.path, "utf8"), this.path);
      this.fileError = null;
    } catch (error) {
      this.fileError =
        error instanceof ProviderConfigError
          ? error
          : new ProviderConfigError(this.path, (error as Error).message, { cause: error });
      this.error = this.fileError;
      return;
    }
    this.applyFile();
  }

  /** The file just read well, with the shared entries over it when there are any. */
  private applyFile(): void {
    if (this.shared === null) {
      this.config = this.fileConfig;
      this.error = null;
      return;
    }
    try {
      this.config = mergeSharedConfig(this.fileConfig, this.shared);
      this.error = null;
    } catch (error) {
      if (!(error instanceof ProviderConfigError)) throw error;
      this.error = error;
    }
  }
}
