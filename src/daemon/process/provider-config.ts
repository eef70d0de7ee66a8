/**
 * Provider profiles and MCP servers from `$SKEIN_HOME/config.json`.
 *
 * Boundary rule: this file reads, validates and writes the file; it never talks to a provider
 * (src/providers does, given a profile). The file is re-read when its mtime or size changes, so
 * a profile added by `skein config add` is usable without a restart. A missing file means "no
 * providers" (the daemon still starts; turns fail with a NoProviderError that says how to add
 * one). A broken file never replaces a good one: the last good config stays in use and the
 * problem is exposed as `lastError` until the file is fixed.
 */
import { readFileSync, statSync } from "node:fs";
import { McpConfigError, type McpServersConfig, parseMcpServers } from "../../mcp/mcp-config.js";
import { LlmClientError } from "../../model/llm-client.js";
import { type ProviderProfile, validateProviderProfile } from "../../providers/provider-profile.js";
import { writeFileAtomic } from "./atomic-file.js";
import { homePaths } from "./home.js";

export type { ProviderProfile, ProviderProtocol } from "../../providers/provider-profile.js";

/** Content of config.json. */
export interface ProviderConfig {
  /** The profile used when a session names none. */
  active?: string;
  providers: Record<string, ProviderProfile>;
  /** MCP servers sessions may use (validated by src/mcp/mcp-config.ts). */
  mcpServers?: McpServersConfig;
}

/** A profile together with its name. */
export interface NamedProfile {
  name: string;
  profile: ProviderProfile;
}

/** config.json exists but is not valid; `path` names the file. */
export class ProviderConfigError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`provider config ${path} is invalid: ${reason}`, options);
    this.name = "ProviderConfigError";
  }
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
  private seen: string | null = null;
  private error: ProviderConfigError | null = null;

  constructor(home: string) {
    this.path = homePaths(home).config;
  }

  /** The config as of now; cheap when the file has not changed (one stat). */
  current(): ProviderConfig {
    this.refresh();
    return this.config;
  }

  /** Why the file on disk is not in use, or null when it is (or is absent). */
  get lastError(): ProviderConfigError | null {
    this.refresh();
    return this.error;
  }

  /** The named profile, or the active one for null; throws NoProviderError. */
  resolveProfile(name: string | null): NamedProfile {
    const config = this.current();
    const wanted = name ?? config.active ?? null;
    if (wanted !== null && Object.hasOwn(config.providers, wanted)) {
      return { name: wanted, profile: config.providers[wanted]! };
    }
    // `active` is validated to name a profile, so only an unknown name or no active one lands here.
    throw new NoProviderError(this.path, name, Object.keys(config.providers));
  }

  private refresh(): void {
    let stamp: string;
    try {
      const stats = statSync(this.path, { bigint: true });
      // mtime alone misses two writes within the file system's timestamp granularity.
      stamp = `${stats.mtimeNs}:${stats.size}:${stats.ino}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
        this.error = new ProviderConfigError(this.path, (error as Error).message, { cause: error });
        return;
      }
      stamp = "absent";
    }
    if (stamp === this.seen) return;
    this.seen = stamp;
    if (stamp === "absent") {
      this.config = emptyConfig;
      this.error = null;
      return;
    }
    try {
      this.config = parseProviderConfig(readFileSync(this.path, "utf8"), this.path);
      this.error = null;
    } catch (error) {
      this.error =
        error instanceof ProviderConfigError
          ? error
          : new ProviderConfigError(this.path, (error as Error).message, { cause: error });
    }
  }
}

/** Parse and strictly validate config.json text; throws ProviderConfigError naming the problem. */
export function parseProviderConfig(text: string, path: string): ProviderConfig {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ProviderConfigError(path, `it is not valid JSON (${(error as Error).message})`, {
      cause: error,
    });
  }
  const fail = (reason: string): never => {
    throw new ProviderConfigError(path, reason);
  };
  const root = asRecord(value) ?? fail("expected a JSON object");
  checkKeys(root, ["active", "providers", "mcpServers"], "the top level", fail);
  const providersValue = root.providers === undefined ? {} : root.providers;
  const providers = asRecord(providersValue) ?? fail(`"providers" must be an object of named profiles`);
  // Null prototype: a profile named "__proto__" must stay a plain key, not replace the prototype.
  const result: Record<string, ProviderProfile> = Object.create(null);
  for (const [name, profileValue] of Object.entries(providers)) {
    if (!isProfileName(name)) {
      fail(
        `profile name ${JSON.stringify(name)} must be 1-64 characters of letters, digits, ".", "_" or "-"`,
      );
    }
    result[name] = parseProfile(name, profileValue, fail);
  }
  const config: ProviderConfig = { providers: result };
  if (root.mcpServers !== undefined) {
    try {
      config.mcpServers = parseMcpServers(root.mcpServers);
    } catch (error) {
      if (error instanceof McpConfigError) fail(error.message);
      throw error;
    }
  }
  if (root.active !== undefined && root.active !== null) {
    if (typeof root.active !== "string") fail(`"active" must be a profile name`);
    const active = root.active as string;
    if (!Object.hasOwn(result, active))
      fail(`"active" names profile "${active}", which is not in "providers"`);
    config.active = active;
  }
  return config;
}

/** Atomically write config.json (mode 0600: it may hold API keys) after validating it. */
export async function writeProviderConfig(home: string, config: ProviderConfig): Promise<void> {
  const path = homePaths(home).config;
  const text = `${JSON.stringify(config, null, 2)}\n`;
  parseProviderConfig(text, path);
  await writeFileAtomic(path, text, 0o600);
}

// One validator for profiles, the provider layer's: the file accepts exactly what a client can use.
function parseProfile(name: string, value: unknown, fail: (reason: string) => never): ProviderProfile {
  const where = `profile "${name}"`;
  let profile: ProviderProfile;
  try {
    profile = validateProviderProfile(value, where);
  } catch (error) {
    if (error instanceof LlmClientError) fail(error.message);
    throw error;
  }
  if (profile.apiKey !== undefined && profile.apiKeyEnv !== undefined) {
    fail(`${where} sets both "apiKey" and "apiKeyEnv"; keep one`);
  }
  return profile;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

function checkKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  where: string,
  fail: (reason: string) => never,
): void {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) fail(`${where} has an unknown field ${JSON.stringify(key)}`);
  }
}

function isProfileName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(name);
}
