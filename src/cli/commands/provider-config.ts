/**
 * `skein config add|list|remove|use|test`: the provider profiles in `$SKEIN_HOME/config.json`.
 *
 * Boundary rule: the file is read and written through the contract's config module
 * (src/home/provider-config.ts: one validator, one format, atomic 0600 writes); the running
 * daemon notices the change by itself. API keys are never printed. `config test` asks the
 * daemon (`POST /providers/{name}/test`), so the request is sent with the key the daemon finds
 * (config.json, its environment, the secrets file), and says where it looked.
 */
import { mkdirSync } from "node:fs";
import type { ProviderTestAnswer } from "../../api/provider-test.js";
import {
  defaultBaseUrls,
  effectiveBaseUrl,
  type ProviderConfig,
  ProviderConfigError,
  type ProviderProfile,
  type ProviderProtocol,
  providerProtocols,
  readProviderConfig,
  writeProviderConfig,
} from "../../home/provider-config.js";
import { type CliContext, connectWithServer } from "../cli-context.js";
import { CliError, readHomeFile } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeShellWarning } from "../render/shell-warning.js";
import { writeLine } from "../render/terminal.js";
import { readAll } from "../stdin-text.js";
import {
  activateSharedProfile,
  addSharedProfile,
  removeSharedProfile,
  type SharedConfig,
  sharedConfigOf,
} from "./shared-config.js";

export interface AddProfileOptions {
  protocol: string;
  model: string;
  baseUrl?: string;
  apiKeyEnv?: string;
  apiKey?: string;
  header?: string[];
  use?: boolean;
}

/** The config of a home; an absent file is an empty config. */
export function readConfig(home: string): ProviderConfig {
  return readHomeFile(() => readProviderConfig(home), ProviderConfigError);
}

/** Validate and write config.json atomically (mode 0600); an invalid config is a usage error. */
export async function saveProviderConfig(context: CliContext, config: ProviderConfig): Promise<void> {
  try {
    await writeProviderConfig(context.home, config);
  } catch (error) {
    throw new CliError((error as Error).message, exitCodes.usage);
  }
}

/** `skein config add NAME …`: add or replace a profile. */
export async function addProfile(
  context: CliContext,
  name: string,
  options: AddProfileOptions,
): Promise<ExitCode> {
  if (!providerProtocols.includes(options.protocol as ProviderProtocol)) {
    throw new CliError(
      `unknown protocol "${options.protocol}"; use one of: ${providerProtocols.join(", ")}`,
      exitCodes.usage,
    );
  }
  if (options.apiKey !== undefined && options.apiKeyEnv !== undefined) {
    throw new CliError("give --api-key or --api-key-env, not both", exitCodes.usage);
  }
  const protocol = options.protocol as ProviderProtocol;
  const profile: ProviderProfile = {
    protocol,
    baseUrl: options.baseUrl ?? defaultBaseUrls[protocol],
    model: options.model,
  };
  if (options.apiKeyEnv !== undefined) profile.apiKeyEnv = options.apiKeyEnv;
  if (options.apiKey !== undefined) {
    const key = options.apiKey === "-" ? (await readAll(context.stdin)).trim() : options.apiKey;
    if (key === "") throw new CliError("the API key is empty", exitCodes.usage);
    profile.apiKey = key;
  }
  if (options.header !== undefined && options.header.length > 0)
    profile.headers = parseHeaders(options.header);
  const shared = await sharedConfigOf(context);
  if (shared !== null)
    return closing(shared, () => addSharedProfile(context, shared, name, profile, options.use === true));
  mkdirSync(context.home, { recursive: true, mode: 0o700 });
  const config = readConfig(context.home);
  const replaced = Object.hasOwn(config.providers, name);
  const providers = { ...config.providers, [name]: profile };
  const active = options.use === true || config.active === undefined ? name : config.active;
  await saveProviderConfig(context, { ...config, active, providers });
  const out = context.terminal.out;
  writeLine(
    out,
    `${replaced ? "replaced" : "added"} provider profile "${name}" (${protocol}, ${profile.model} at ${profile.baseUrl})`,
  );
  if (active === name) writeLine(out, `"${name}" is the active profile: new sessions use it`);
  if (profile.apiKeyEnv !== undefined && context.env[profile.apiKeyEnv] === undefined) {
    writeLine(
      context.terminal.err,
      context.terminal.err.paint.yellow(
        `note: ${profile.apiKeyEnv} is not set here; the daemon reads it from its own environment (the one it was started from)`,
      ),
    );
  }
  return exitCodes.ok;
}

/** `--header "Name: value"` options (also "Name=value") as a header object; a usage error otherwise. */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(":");
    const equals = value.indexOf("=");
    const split = colon > 0 ? colon : equals;
    if (split <= 0) throw new CliError(`--header "${value}" must look like "Name: value"`, exitCodes.usage);
    headers[value.slice(0, split).trim()] = value.slice(split + 1).trim();
  }
  return headers;
}

/** Run `action` on the shared config, then let go of the daemon's connection. */
async function closing(shared: SharedConfig, action: () => Promise<ExitCode>): Promise<ExitCode> {
  try {
    return await action();
  } finally {
    shared.client.close();
  }
}

/** `skein config list`: the config in force on the daemon when the cluster shares it, else config.json. */
export async function listProfiles(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const shared = await sharedConfigOf(context);
  shared?.client.close();
  const config: ProviderConfig =
    shared === null
      ? readConfig(context.home)
      : {
          ...(shared.view.active === null ? {} : { active: shared.view.active }),
          providers: Object.fromEntries(
            Object.entries(shared.view.providers).map(([name, { profile }]) => [
              name,
              profile as unknown as ProviderProfile,
            ]),
          ),
        };
  const isShared = (name: string) => shared?.view.providers[name]?.shared === true;
  const out = context.terminal.out;
  const names = Object.keys(config.providers);
  if (options.json === true) {
    const redacted = Object.fromEntries(
      names.map((name) => {
        const { apiKey, ...rest } = config.providers[name]!;
        return [name, apiKey === undefined ? rest : { ...rest, apiKey: "(stored)" }];
      }),
    );
    const source = shared === null ? {} : { source: "database", version: shared.view.version };
    writeLine(
      out,
      JSON.stringify({ ...source, active: config.active ?? null, providers: redacted }, null, 2),
    );
    return exitCodes.ok;
  }
  if (names.length === 0) {
    writeLine(
      out,
      "no provider profiles yet; add one with `skein config add` (see `skein config add --help`)",
    );
    return exitCodes.ok;
  }
  for (const name of names) {
    const profile = config.providers[name]!;
    const key =
      profile.apiKeyEnv !== undefined
        ? `key from $${profile.apiKeyEnv}`
        : profile.apiKey !== undefined
          ? "key stored"
          : "no key";
    const marker = config.active === name ? out.paint.green("*") : " ";
    writeLine(
      out,
      `${marker} ${out.paint.bold(name)}  ${profile.protocol}  ${profile.model}  ${out.paint.dim(`${effectiveBaseUrl(profile)} · ${key}${isShared(name) ? " · cluster" : ""}`)}`,
    );
  }
  return exitCodes.ok;
}

/** `skein config remove NAME`. */
export async function removeProfile(context: CliContext, name: string): Promise<ExitCode> {
  const shared = await sharedConfigOf(context);
  if (shared !== null) {
    if (shared.view.providers[name]?.shared === true)
      return closing(shared, () => removeSharedProfile(context, shared, name));
    shared.client.close();
    // A profile of this node's own config.json: removed there, on this node only.
  }
  const config = readConfig(context.home);
  if (!Object.hasOwn(config.providers, name))
    throw new CliError(`no provider profile named "${name}"`, exitCodes.notFound);
  const providers = { ...config.providers };
  delete providers[name];
  const next: ProviderConfig = { providers };
  if (config.mcpServers !== undefined) next.mcpServers = config.mcpServers;
  if (config.active !== undefined && config.active !== name) next.active = config.active;
  await saveProviderConfig(context, next);
  writeLine(context.terminal.out, `removed provider profile "${name}"`);
  if (config.active === name) {
    writeLine(context.terminal.out, "no profile is active now; choose one with `skein config use NAME`");
  }
  return exitCodes.ok;
}

/** `skein config use NAME`. */
export async function useProfile(context: CliContext, name: string): Promise<ExitCode> {
  const shared = await sharedConfigOf(context);
  if (shared !== null) return closing(shared, () => activateSharedProfile(context, shared, name));
  const config = readConfig(context.home);
  if (!Object.hasOwn(config.providers, name)) {
    const known = Object.keys(config.providers);
    throw new CliError(
      `no provider profile named "${name}"${known.length > 0 ? ` (configured: ${known.join(", ")})` : ""}`,
      exitCodes.notFound,
    );
  }
  await saveProviderConfig(context, { ...config, active: name });
  writeLine(context.terminal.out, `"${name}" is now the active provider profile`);
  return exitCodes.ok;
}

/**
 * `skein config test [NAME]`: the daemon sends one tiny request to the provider (giving up after
 * `options.timeout` seconds); reports what happened.
 */
export async function testProfile(
  context: CliContext,
  name: string | undefined,
  options: { timeout: number },
): Promise<ExitCode> {
  // On a cluster the active profile is the daemon's (the shared config over config.json).
  const shared = name === undefined ? await sharedConfigOf(context) : null;
  shared?.client.close();
  const chosen =
    name ?? (shared === null ? readConfig(context.home).active : (shared.view.active ?? undefined));
  if (chosen === undefined) {
    throw new CliError(
      "no provider profile is active",
      exitCodes.notFound,
      "add one with `skein config add`, or name one",
    );
  }
  const { client, server } = await connectWithServer(context);
  const shell = server.shell;
  let answer: ProviderTestAnswer;
  try {
    answer = await client.testProvider(chosen, { timeout_ms: options.timeout * 1000 });
  } finally {
    client.close();
  }
  const { out, err } = context.terminal;
  // Whether the agent can run commands matters as much as the provider: say so when it cannot.
  if (shell !== undefined && shell.hint !== null) writeShellWarning(err, shell);
  const label = `${answer.profile} (${answer.protocol}, ${answer.model} at ${answer.base_url})`;
  const { result } = answer;
  if (!result.ok) {
    const status = result.status === null ? "" : ` (HTTP ${result.status})`;
    const reason =
      result.kind === "timeout" ? result.message : `${result.kind} error${status}: ${result.message}`;
    writeLine(err, `${err.paint.red("✗")} ${label}: ${reason} [${answer.elapsed_ms} ms]`);
    writeLine(err, `the daemon looked for the API key at: ${answer.api_key.looked.join("; ")}`);
    const refused = (result.status === 401 || result.status === 403) && answer.api_key.source !== "config";
    if (result.kind === "config" || refused) writeLine(err, `fix: \`${keyFix(answer.profile)}\``);
    return exitCodes.error;
  }
  const shown = result.text === "" ? "(no text)" : JSON.stringify(result.text.slice(0, 80));
  const usage =
    result.usage === null
      ? ""
      : ` (${result.usage.input_tokens} tokens in, ${result.usage.output_tokens} out)`;
  writeLine(out, `${out.paint.green("✓")} ${label}: answered ${shown} in ${answer.elapsed_ms} ms${usage}`);
  const source = answer.api_key.source;
  if (source !== null) {
    const where = answer.api_key.looked.at(-1) ?? "";
    const note = source === "env" ? `${where} (the environment it was started from)` : where;
    writeLine(out, out.paint.dim(`the daemon used the API key from ${note}`));
  }
  return exitCodes.ok;
}

/** The one command that gives profile `name` a key the running daemon uses. */
export function keyFix(name: string): string {
  return `skein auth set ${name}`;
}
