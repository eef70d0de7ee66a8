/**
 * `skein config add|list|remove|use|test`: the provider profiles in `$SKEIN_HOME/config.json`.
 *
 * Boundary rule: the file is read and written through the daemon's own config module (one
 * validator, one format, atomic 0600 writes); the running daemon notices the change by itself.
 * API keys are never printed. `config test` talks to the provider directly (through
 * src/providers, loaded only for that subcommand), not through the daemon.
 */
import { mkdirSync, readFileSync } from "node:fs";
import {
  type ProviderConfig,
  parseProviderConfig,
  writeProviderConfig,
} from "../../daemon/process/provider-config.js";
import {
  defaultBaseUrls,
  effectiveBaseUrl,
  type ProviderProfile,
  type ProviderProtocol,
  providerProtocols,
} from "../../providers/provider-profile.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { providerConfigPath } from "../client/discovery.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { readAll } from "./run-prompt.js";

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
export function readProviderConfig(home: string): ProviderConfig {
  const path = providerConfigPath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { providers: {} };
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`);
  }
  try {
    return parseProviderConfig(text, path);
  } catch (error) {
    throw new CliError((error as Error).message, exitCodes.error, `fix or remove ${path}`);
  }
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
  mkdirSync(context.home, { recursive: true, mode: 0o700 });
  const config = readProviderConfig(context.home);
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

/** `skein config list`. */
export function listProfiles(context: CliContext, options: { json?: boolean }): ExitCode {
  const config = readProviderConfig(context.home);
  const out = context.terminal.out;
  const names = Object.keys(config.providers);
  if (options.json === true) {
    const redacted = Object.fromEntries(
      names.map((name) => {
        const { apiKey, ...rest } = config.providers[name]!;
        return [name, apiKey === undefined ? rest : { ...rest, apiKey: "(stored)" }];
      }),
    );
    writeLine(out, JSON.stringify({ active: config.active ?? null, providers: redacted }, null, 2));
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
      `${marker} ${out.paint.bold(name)}  ${profile.protocol}  ${profile.model}  ${out.paint.dim(`${effectiveBaseUrl(profile)} · ${key}`)}`,
    );
  }
  return exitCodes.ok;
}

/** `skein config remove NAME`. */
export async function removeProfile(context: CliContext, name: string): Promise<ExitCode> {
  const config = readProviderConfig(context.home);
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
  const config = readProviderConfig(context.home);
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

/** `skein config test [NAME]`: one tiny streamed request to the provider; reports what happened. */
export async function testProfile(
  context: CliContext,
  name: string | undefined,
  options: { timeoutMs: number },
): Promise<ExitCode> {
  const config = readProviderConfig(context.home);
  const chosen = name ?? config.active;
  if (chosen === undefined) {
    throw new CliError(
      "no provider profile is active",
      exitCodes.notFound,
      "add one with `skein config add`, or name one",
    );
  }
  const profile = config.providers[chosen];
  if (profile === undefined) throw new CliError(`no provider profile named "${chosen}"`, exitCodes.notFound);
  const { createLlmClient } = await import("../../providers/create-llm-client.js");
  const { LlmClientError } = await import("../../model/llm-client.js");
  const { out, err } = context.terminal;
  const label = `${chosen} (${profile.protocol}, ${profile.model} at ${effectiveBaseUrl(profile)})`;
  const started = Date.now();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error("timeout")), options.timeoutMs);
  let answer = "";
  let usage = "";
  try {
    const client = createLlmClient(profile, {
      env: context.env,
      retry: { maxAttempts: 1 },
      idleTimeoutMs: options.timeoutMs,
    });
    const request = {
      items: [
        {
          type: "message" as const,
          role: "user" as const,
          content: [{ type: "text" as const, text: "Reply with the single word: OK" }],
        },
      ],
      tools: [],
      config: { max_tokens: 64 },
    };
    for await (const event of client.stream(request, abort.signal)) {
      if (event.type === "block_delta" && event.delta.type === "text") answer += event.delta.text;
      if (event.type === "usage") {
        usage = ` (${event.usage.input_tokens ?? 0} tokens in, ${event.usage.output_tokens ?? 0} out)`;
      }
      if (event.type === "error") throw new Error(event.message);
    }
  } catch (error) {
    const ms = Date.now() - started;
    let reason = error instanceof Error ? error.message : String(error);
    if (abort.signal.aborted) reason = `no answer within ${options.timeoutMs} ms`;
    else if (error instanceof LlmClientError) {
      reason = `${error.kind} error${error.status === undefined ? "" : ` (HTTP ${error.status})`}: ${error.message}`;
    }
    writeLine(err, `${err.paint.red("✗")} ${label}: ${reason} [${ms} ms]`);
    return exitCodes.error;
  } finally {
    clearTimeout(timer);
  }
  const ms = Date.now() - started;
  const shown = answer.trim() === "" ? "(no text)" : JSON.stringify(answer.trim().slice(0, 80));
  writeLine(out, `${out.paint.green("✓")} ${label}: answered ${shown} in ${ms} ms${usage}`);
  if (profile.apiKeyEnv !== undefined) {
    writeLine(
      out,
      out.paint.dim(
        `the daemon reads $${profile.apiKeyEnv} from its own environment (the one it was started from)`,
      ),
    );
  }
  return exitCodes.ok;
}
