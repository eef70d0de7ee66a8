/**
 * `$SKEIN_HOME/secrets.json`: the API keys stored by `skein auth set`, one per provider
 * profile, `{"version": 1, "apiKeys": {profile: key}}`. Its shape, parser and writer, shared by
 * the CLI (which edits it) and the daemon (which re-reads it when it changes).
 *
 * Boundary rule: the file's format only. It is written atomically with mode 0600 inside the
 * 0700 home, which no tool can reach (the whole home is hidden from tools). A key is never put
 * in an error message.
 */
import { writeFileAtomic } from "./atomic-file.js";
import { homePaths } from "./home.js";
import { readOptionalText } from "./optional-text-file.js";
import { isProfileName } from "./provider-config.js";

/** Content of secrets.json: the stored key of each profile that has one. */
export interface SecretsFile {
  apiKeys: Readonly<Record<string, string>>;
}

/** Longest key accepted (real keys are a few hundred characters). */
const maxApiKeyLength = 8192;

/** secrets.json cannot be read or is not valid; `path` names the file. */
export class SecretsFileError extends Error {
  constructor(
    readonly path: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(`secrets file ${path} is invalid: ${reason}`, options);
    this.name = "SecretsFileError";
  }
}

/** Why `key` cannot be stored, or null when it can (the key itself is never quoted). */
export function apiKeyProblem(key: string): string | null {
  if (key.length === 0) return "the API key is empty";
  if (key.length > maxApiKeyLength) return `the API key is longer than ${maxApiKeyLength} characters`;
  // A key goes into an HTTP header: anything but printable ASCII there is a pasting mistake.
  if (!/^[!-~]+$/.test(key)) return "the API key contains spaces, control or non-ASCII characters";
  return null;
}

/** The secrets of a home; an absent file holds no keys. Throws SecretsFileError. */
export function readSecretsFile(home: string): SecretsFile {
  const path = homePaths(home).secrets;
  const text = readOptionalText(path, (reason, cause) => new SecretsFileError(path, reason, { cause }));
  return text === null ? { apiKeys: {} } : parseSecretsFile(text, path);
}

/** Parse and validate secrets.json text; throws SecretsFileError naming the problem (never a key). */
export function parseSecretsFile(text: string, path: string): SecretsFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's message may quote the text, which holds keys.
    throw new SecretsFileError(path, "it is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new SecretsFileError(path, "expected a JSON object");
  const root = value as Record<string, unknown>;
  if (root.version !== 1) throw new SecretsFileError(path, `"version" must be 1`);
  const keysValue = root.apiKeys ?? {};
  if (typeof keysValue !== "object" || keysValue === null || Array.isArray(keysValue))
    throw new SecretsFileError(path, `"apiKeys" must be an object of profile names to keys`);
  // Null prototype: a profile named "__proto__" stays a plain key.
  const apiKeys: Record<string, string> = Object.create(null);
  for (const [name, key] of Object.entries(keysValue as Record<string, unknown>)) {
    if (!isProfileName(name))
      throw new SecretsFileError(path, `${JSON.stringify(name)} is not a profile name`);
    const problem = typeof key === "string" ? apiKeyProblem(key) : "the key is not a string";
    if (problem !== null) throw new SecretsFileError(path, `profile "${name}": ${problem}`);
    apiKeys[name] = key as string;
  }
  return { apiKeys };
}

/** Atomically write secrets.json (mode 0600) after validating it. */
export async function writeSecretsFile(home: string, secrets: SecretsFile): Promise<void> {
  const path = homePaths(home).secrets;
  const sorted = Object.fromEntries(Object.entries(secrets.apiKeys).sort(([a], [b]) => a.localeCompare(b)));
  const text = `${JSON.stringify({ version: 1, apiKeys: sorted }, null, 2)}\n`;
  parseSecretsFile(text, path);
  await writeFileAtomic(path, text, 0o600);
}
