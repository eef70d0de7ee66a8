/**
 * `skein auth set|list|remove`: the API keys kept in `$SKEIN_HOME/secrets.json`, one per
 * provider profile. The daemon reads that file itself and notices changes, so a key set here is
 * used by the next turn of a daemon that is already running; no environment is needed.
 *
 * Boundary rule: the file is read and written through the contract's module
 * (src/home/secrets-file.ts: one format, atomic 0600 writes). A key is read from a hidden prompt
 * on a terminal or from stdin otherwise, never from the command line (argv is visible to every
 * user of the machine), and is never printed.
 */
import { mkdirSync } from "node:fs";
import { homePaths } from "../../home/home.js";
import { isProfileName, type ProviderConfig } from "../../home/provider-config.js";
import {
  apiKeyProblem,
  readSecretsFile,
  type SecretsFile,
  SecretsFileError,
  writeSecretsFile,
} from "../../home/secrets-file.js";
import type { CliContext } from "../cli-context.js";
import { CliError, readHomeFile } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { readHiddenLine } from "../hidden-line.js";
import { writeLine } from "../render/terminal.js";
import { readAll } from "../stdin-text.js";
import { readConfig } from "./provider-config.js";

/** `skein auth set PROFILE`: store the key read from the terminal (hidden) or stdin. */
export async function setKey(context: CliContext, profile: string): Promise<ExitCode> {
  checkProfileName(profile);
  const config = readConfig(context.home);
  const secrets = readSecrets(context.home);
  const key = (
    context.stdin.isTTY === true
      ? await readHiddenLine(context.stdin, context.terminal.err.stream, `API key for "${profile}": `)
      : await readAll(context.stdin)
  ).trim();
  const problem = apiKeyProblem(key);
  if (problem !== null) throw new CliError(`${problem}; nothing was stored`, exitCodes.usage);
  mkdirSync(context.home, { recursive: true, mode: 0o700 });
  const replaced = Object.hasOwn(secrets.apiKeys, profile);
  await writeSecretsFile(context.home, { apiKeys: { ...secrets.apiKeys, [profile]: key } });
  const { out, err } = context.terminal;
  writeLine(
    out,
    `${replaced ? "replaced" : "stored"} the API key of "${profile}" in ${homePaths(context.home).secrets} (mode 0600); the daemon uses it from the next turn`,
  );
  for (const note of precedenceNotes(config, profile)) writeLine(err, err.paint.yellow(`note: ${note}`));
  return exitCodes.ok;
}

/** `skein auth list`: the profiles with a stored key (never the key). */
export function listKeys(context: CliContext, options: { json?: boolean }): ExitCode {
  const names = Object.keys(readSecrets(context.home).apiKeys).sort();
  const out = context.terminal.out;
  if (options.json === true) {
    writeLine(out, JSON.stringify({ profiles: names }, null, 2));
    return exitCodes.ok;
  }
  if (names.length === 0) {
    writeLine(out, "no stored API keys; store one with `skein auth set PROFILE`");
    return exitCodes.ok;
  }
  for (const name of names) writeLine(out, name);
  return exitCodes.ok;
}

/** `skein auth remove PROFILE`: forget the stored key. */
export async function removeKey(context: CliContext, profile: string): Promise<ExitCode> {
  checkProfileName(profile);
  const secrets = readSecrets(context.home);
  if (!Object.hasOwn(secrets.apiKeys, profile)) {
    throw new CliError(`no API key is stored for "${profile}"`, exitCodes.notFound, "see `skein auth list`");
  }
  const apiKeys = { ...secrets.apiKeys };
  delete apiKeys[profile];
  await writeSecretsFile(context.home, { apiKeys });
  writeLine(context.terminal.out, `removed the API key of "${profile}"`);
  return exitCodes.ok;
}

function checkProfileName(profile: string): void {
  if (!isProfileName(profile)) {
    throw new CliError(
      `"${profile}" is not a profile name (1-64 letters, digits, ".", "_" or "-")`,
      exitCodes.usage,
    );
  }
}

function readSecrets(home: string): SecretsFile {
  return readHomeFile(() => readSecretsFile(home), SecretsFileError);
}

/** What would keep the daemon from using a key stored for `profile` (see docs/cli.md, "API keys"). */
function precedenceNotes(config: ProviderConfig, profile: string): string[] {
  if (!Object.hasOwn(config.providers, profile)) {
    return [`no profile "${profile}" is configured yet; \`skein config add ${profile} …\` will use this key`];
  }
  const configured = config.providers[profile]!;
  if (configured.apiKey !== undefined) {
    return [
      `profile "${profile}" has its own "apiKey" in config.json, which comes first; \`skein config add\` without --api-key replaces the profile`,
    ];
  }
  return [];
}
