/**
 * A cluster's shared config: entries kept in the database, laid over each node's config.json.
 * A `providers` entry is one profile, a `mcpServers` entry one MCP server, a `settings` entry
 * one of the top-level settings (`active`, `approvalPolicy`, `maxToolRounds`, `budgets`, so every
 * node enforces the same limits on the usage they count together); a database
 * entry replaces the file's of the same name. What only a node's own file may say
 * (`trustedHeadKeys`, `webFetch`, `retention`) has no entry. Sections this daemon does not know (a newer
 * daemon's, e.g. agents) are ignored.
 *
 * Boundary rule: the format and its checks only, through config.json's own validator
 * (provider-config.ts), so an entry is valid exactly when the same text in config.json is. No
 * secret is shared: a profile's API key and credential headers stay in each node's home.
 */
import { type ProviderConfig, ProviderConfigError, parseProviderConfig } from "./provider-config.js";

/** The sections of the shared config this daemon reads. */
const configSections = ["providers", "mcpServers", "settings"] as const;
export type ConfigSection = (typeof configSections)[number];

/** The top-level settings the shared config may set. */
const sharedSettings = ["active", "approvalPolicy", "maxToolRounds", "budgets"] as const;

/** One entry of the shared config: its section, its name there, its JSON value. */
export interface ConfigEntry {
  section: ConfigSection;
  name: string;
  value: unknown;
}

/** What the validator names as the place of a problem in the shared config. */
const sharedConfigPlace = "in the database (cluster_config)";

/** Header names whose values are credentials: kept per node, never in the database. */
const credentialHeader = /authorization|api[-_]?key|token|secret|cookie|password/i;

/** Whether a header of this name carries a credential (its value is never shared nor shown). */
export function isCredentialHeader(name: string): boolean {
  return credentialHeader.test(name);
}

/** Whether `section` is one this daemon reads. */
export function isConfigSection(section: string): section is ConfigSection {
  return (configSections as readonly string[]).includes(section);
}

/** The config the shared entries say by themselves (as config.json text would). */
function sharedConfigOf(entries: readonly ConfigEntry[]): Record<string, unknown> {
  const providers: Record<string, unknown> = Object.create(null);
  const mcpServers: Record<string, unknown> = Object.create(null);
  const config: Record<string, unknown> = { providers };
  let anyServer = false;
  for (const entry of entries) {
    switch (entry.section) {
      case "providers":
        providers[entry.name] = entry.value;
        break;
      case "mcpServers":
        mcpServers[entry.name] = entry.value;
        anyServer = true;
        break;
      case "settings":
        config[entry.name] = entry.value;
        break;
      default: {
        const unknown: never = entry.section;
        throw new Error(`unknown config section ${String(unknown)}`);
      }
    }
  }
  if (anyServer) config.mcpServers = mcpServers;
  return config;
}

/**
 * Check the shared entries on their own, as config.json is checked, plus what the database may
 * not hold (secrets, unknown settings). Throws ProviderConfigError naming the problem.
 */
export function checkSharedConfig(entries: readonly ConfigEntry[]): ProviderConfig {
  const fail = (reason: string): never => {
    throw new ProviderConfigError(sharedConfigPlace, reason);
  };
  for (const entry of entries) {
    if (entry.section === "settings" && !(sharedSettings as readonly string[]).includes(entry.name))
      fail(`"${entry.name}" is not a shared setting (shared: ${sharedSettings.join(", ")})`);
    if (entry.section === "providers") checkNoSecret(entry.name, entry.value, fail);
  }
  return parseProviderConfig(JSON.stringify(sharedConfigOf(entries)), sharedConfigPlace);
}

/** config.json (`file`, as parsed) with the shared entries laid over it, checked as a whole. */
export function mergeSharedConfig(file: ProviderConfig, entries: readonly ConfigEntry[]): ProviderConfig {
  const shared = sharedConfigOf(entries);
  const merged: Record<string, unknown> = { ...file, ...shared };
  merged.providers = { ...file.providers, ...(shared.providers as object) };
  if (file.mcpServers !== undefined || shared.mcpServers !== undefined)
    merged.mcpServers = { ...file.mcpServers, ...(shared.mcpServers as object | undefined) };
  return parseProviderConfig(JSON.stringify(merged), sharedConfigPlace);
}

function checkNoSecret(name: string, value: unknown, fail: (reason: string) => never): void {
  if (typeof value !== "object" || value === null) return;
  const profile = value as { apiKey?: unknown; headers?: unknown };
  const where = `profile "${name}"`;
  if (profile.apiKey !== undefined)
    fail(
      `${where} holds an API key; keys are never stored in the database: name a variable with "apiKeyEnv" (and set it on every node) or store the key on each node with \`skein auth set ${name}\``,
    );
  if (typeof profile.headers === "object" && profile.headers !== null) {
    for (const header of Object.keys(profile.headers)) {
      if (isCredentialHeader(header))
        fail(
          `${where} sets header "${header}", a credential; credentials stay in each node's own config.json or secrets`,
        );
    }
  }
}
