/**
 * `$SKEIN_HOME/config.json`: the provider profiles, `{"active"?: name, "providers": {name:
 * profile}, "mcpServers"?, "approvalPolicy"?, "maxToolRounds"?, "trustedHeadKeys"?, "webFetch"?, "retention"?, "agents"?,
 * "maxParallelTasks"?, "maxTaskDepth"?, "notifications"?, "budgets"?, "onUnknownOutcome"?}`. Its shape, its parser and its
 * writer, shared by the daemon (which re-reads it when it changes) and the CLI (`skein config`,
 * which edits it).
 *
 * Boundary rule: the file's format only. A profile's fields are the provider layer's
 * (src/providers/provider-profile.ts validates them), so the file accepts exactly what a
 * provider client can use, plus its sessions' `approvalPolicy` and `maxToolRounds`, which are
 * split off first (`splitProfile`); what the CLI needs of profiles is re-exported from here.
 * Writes are atomic with mode 0600 (the file may hold API keys).
 */

import type { ApprovalPolicy } from "../model/approval-policy.js";
import { parseHeadPublicKey } from "../model/head-key.js";
import { LlmClientError } from "../model/llm-client.js";
import type { UnknownOutcomePolicy } from "../model/unknown-outcome.js";
import { type ProviderProfile, validateProviderProfile } from "../providers/provider-profile.js";
import { type AgentDefinition, parseAgentsConfig } from "./agent-definition.js";
import { ApprovalPolicyError, parseApprovalPolicy } from "./approval-policy.js";
import { writeFileAtomic } from "./atomic-file.js";
import { type BudgetsConfig, parseBudgetsConfig } from "./budget-config.js";
import { homePaths } from "./home.js";
import { McpConfigError, type McpServersConfig, parseMcpServers } from "./mcp-config.js";
import { type NotificationTarget, parseNotificationsConfig } from "./notification-config.js";
import { readOptionalText } from "./optional-text-file.js";
import { parseRetentionConfig, type RetentionConfig } from "./retention-config.js";
import { parseUnknownOutcomeConfig } from "./unknown-outcome-config.js";
import { parseWebFetchConfig, type WebFetchConfig } from "./web-fetch-config.js";

export {
  defaultBaseUrls,
  effectiveBaseUrl,
  type ProviderProfile,
  type ProviderProtocol,
  providerProtocols,
} from "../providers/provider-profile.js";

/**
 * What config.json sets for sessions besides their provider, at the top level (every session)
 * and per profile (that profile's sessions): the approval policy of their tool calls and the
 * most tool rounds one turn may take (null: no cap, so a profile can lift the top level's).
 */
export interface SessionSettings {
  approvalPolicy?: ApprovalPolicy;
  maxToolRounds?: number | null;
}

/** A profile as config.json holds it: where the model is, plus its sessions' settings. */
export type ConfiguredProfile = ProviderProfile & SessionSettings;

/** Content of config.json. */
export interface ProviderConfig extends SessionSettings {
  /** The profile used when a session names none. */
  active?: string;
  providers: Record<string, ConfiguredProfile>;
  /** MCP servers sessions may use (see mcp-config.ts). */
  mcpServers?: McpServersConfig;
  /**
   * Public keys (SPKI PEM, Ed25519) whose signed heads this daemon accepts besides its own: the
   * other nodes of a cluster that do not share its key. Only this file (in the home) can say so:
   * keys found in the database are never trusted.
   */
  trustedHeadKeys?: string[];
  /** What `web_fetch` may reach besides public addresses (see web-fetch-config.ts). */
  webFetch?: WebFetchConfig;
  /** What the daemon removes of old sessions (see retention-config.ts); absent: nothing. */
  retention?: RetentionConfig;
  /** Caps on what sessions and profiles may use (see budget-config.ts); absent: none. */
  budgets?: BudgetsConfig;
  /** What recovery does with a call a crash cut short, per tool (see unknown-outcome-config.ts). */
  onUnknownOutcome?: UnknownOutcomePolicy;
  /** Webhooks told of sessions' events (see notification-config.ts); absent: none. */
  notifications?: NotificationTarget[];
  /** Agents the `task` tool may start (see agent-definition.ts). */
  agents?: Record<string, AgentDefinition>;
  /** Most `task` calls of one session that run at once (default 4). */
  maxParallelTasks?: number;
  /** How deep `task` calls may nest: 1 lets a session start children that cannot start their own (default 1). */
  maxTaskDepth?: number;
}

/** Highest `maxParallelTasks` and `maxTaskDepth` config.json may set. */
const taskLimits = { maxParallelTasks: 64, maxTaskDepth: 8 } as const;

/** Most keys `trustedHeadKeys` may list. */
const maxTrustedHeadKeys = 256;

/** Highest `maxToolRounds` config.json may set (without one, a turn has no round cap). */
const maxToolRoundsLimit = 10_000;

/** A configured profile split into what its provider client takes and what its sessions take. */
export function splitProfile(profile: ConfiguredProfile): {
  provider: ProviderProfile;
  settings: SessionSettings;
} {
  const { approvalPolicy, maxToolRounds, ...provider } = profile;
  return {
    provider,
    settings: {
      ...(approvalPolicy === undefined ? {} : { approvalPolicy }),
      ...(maxToolRounds === undefined ? {} : { maxToolRounds }),
    },
  };
}

/** config.json cannot be read or is not valid; `path` names the file. */
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

/** The config of a home; an absent file is an empty config. Throws ProviderConfigError. */
export function readProviderConfig(home: string): ProviderConfig {
  const path = homePaths(home).config;
  const text = readOptionalText(path, (reason, cause) => new ProviderConfigError(path, reason, { cause }));
  return text === null ? { providers: {} } : parseProviderConfig(text, path);
}

/** Every key config.json's top level may hold. */
const topLevelKeys = [
  "active",
  "providers",
  "mcpServers",
  "approvalPolicy",
  "maxToolRounds",
  "trustedHeadKeys",
  "webFetch",
  "retention",
  "budgets",
  "notifications",
  "agents",
  "maxParallelTasks",
  "maxTaskDepth",
  "onUnknownOutcome",
];

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
  checkKeys(root, topLevelKeys, "the top level", fail);
  const providersValue = root.providers === undefined ? {} : root.providers;
  const providers = asRecord(providersValue) ?? fail(`"providers" must be an object of named profiles`);
  // Null prototype: a profile named "__proto__" must stay a plain key, not replace the prototype.
  const result: Record<string, ConfiguredProfile> = Object.create(null);
  for (const [name, profileValue] of Object.entries(providers)) {
    if (!isProfileName(name)) {
      fail(
        `profile name ${JSON.stringify(name)} must be 1-64 characters of letters, digits, ".", "_" or "-"`,
      );
    }
    result[name] = parseProfile(name, profileValue, fail);
  }
  const config: ProviderConfig = { providers: result, ...parseSessionSettings(root, "", fail) };
  if (root.mcpServers !== undefined) {
    try {
      config.mcpServers = parseMcpServers(root.mcpServers);
    } catch (error) {
      if (error instanceof McpConfigError) fail(error.message);
      throw error;
    }
  }
  if (root.webFetch !== undefined) config.webFetch = parseWebFetchConfig(root.webFetch, fail);
  if (root.retention !== undefined) config.retention = parseRetentionConfig(root.retention, fail);
  if (root.budgets !== undefined) config.budgets = parseBudgetsConfig(root.budgets, fail);
  if (root.onUnknownOutcome !== undefined)
    config.onUnknownOutcome = parseUnknownOutcomeConfig(root.onUnknownOutcome, fail);
  if (root.notifications !== undefined)
    config.notifications = parseNotificationsConfig(root.notifications, fail);
  if (root.agents !== undefined) config.agents = parseAgentsConfig(root.agents, fail);
  for (const key of ["maxParallelTasks", "maxTaskDepth"] as const) {
    const limit = root[key];
    if (limit === undefined) continue;
    if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 0 || limit > taskLimits[key])
      fail(`"${key}" must be a whole number from 0 to ${taskLimits[key]}`);
    config[key] = limit as number;
  }
  if (root.trustedHeadKeys !== undefined)
    config.trustedHeadKeys = parseTrustedHeadKeys(root.trustedHeadKeys, fail);
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

function parseTrustedHeadKeys(value: unknown, fail: (reason: string) => never): string[] {
  if (!Array.isArray(value) || value.length > maxTrustedHeadKeys)
    fail(`"trustedHeadKeys" must be an array of at most ${maxTrustedHeadKeys} public keys (PEM text)`);
  return (value as unknown[]).map((item, index) => {
    if (typeof item !== "string" || item.length > 4096)
      fail(`"trustedHeadKeys"[${index}] must be a public key in PEM form`);
    try {
      parseHeadPublicKey(item as string);
    } catch (error) {
      fail(`"trustedHeadKeys"[${index}] is not a head-signing key: ${(error as Error).message}`);
    }
    return item as string;
  });
}

// One validator for profiles, the provider layer's: the file accepts exactly what a provider
// client can use, plus the sessions' settings, which are taken out before it looks.
function parseProfile(name: string, value: unknown, fail: (reason: string) => never): ConfiguredProfile {
  const where = `profile "${name}"`;
  const record = asRecord(value);
  const { approvalPolicy, maxToolRounds, ...providerPart } = record ?? {};
  const settings = parseSessionSettings({ approvalPolicy, maxToolRounds }, `${where}: `, fail);
  let profile: ProviderProfile;
  try {
    profile = validateProviderProfile(record === null ? value : providerPart, where);
  } catch (error) {
    if (error instanceof LlmClientError) fail(error.message);
    throw error;
  }
  if (profile.apiKey !== undefined && profile.apiKeyEnv !== undefined) {
    fail(`${where} sets both "apiKey" and "apiKeyEnv"; keep one`);
  }
  return { ...profile, ...settings };
}

/** `approvalPolicy` and `maxToolRounds` of the top level or of a profile (`prefix` says which). */
function parseSessionSettings(
  record: Record<string, unknown>,
  prefix: string,
  fail: (reason: string) => never,
): SessionSettings {
  const settings: SessionSettings = {};
  if (record.approvalPolicy !== undefined) {
    try {
      settings.approvalPolicy = parseApprovalPolicy(record.approvalPolicy, `${prefix}"approvalPolicy"`);
    } catch (error) {
      if (error instanceof ApprovalPolicyError) fail(error.message);
      throw error;
    }
  }
  const rounds = record.maxToolRounds;
  if (rounds === null) {
    settings.maxToolRounds = null;
  } else if (rounds !== undefined) {
    if (
      typeof rounds !== "number" ||
      !Number.isInteger(rounds) ||
      rounds < 1 ||
      rounds > maxToolRoundsLimit
    ) {
      fail(
        `${prefix}"maxToolRounds" must be a whole number from 1 to ${maxToolRoundsLimit}, or null for no cap`,
      );
    }
    settings.maxToolRounds = rounds as number;
  }
  return settings;
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

/** Whether `name` may name a profile: 1-64 letters, digits, ".", "_" or "-". */
export function isProfileName(name: string): boolean {
  return /^[A-Za-z0-9._-]{1,64}$/.test(name);
}
