// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} and ${env:NAME} are config placeholders, not template slips
/**
 * The `mcpServers` section of config.json: the MCP servers a daemon may start, in the shape
 * users already write for other agents, `{"<name>": {"command", "args", "env", "cwd"} | {"url",
 * "headers"}}`, plus Skein's own optional `timeoutMs` and `startupTimeoutMs`.
 *
 * Boundary rule: validation and placeholder expansion only; nothing here starts a process.
 * A config is kept as the user wrote it (so writing it back changes nothing); `resolveServer`
 * turns one entry into what a start needs, with `${workspace}` and `${env:NAME}` expanded.
 */
import { isAbsolute } from "node:path";

/** Fields every server may set. */
interface ServerLimits {
  /** How long one tool call may take (default 60 s). */
  timeoutMs?: number;
  /** How long starting the server (spawn or connect, initialize, list tools) may take (default 30 s). */
  startupTimeoutMs?: number;
}

/** A server run as a child process speaking JSON-RPC over stdin/stdout. */
export interface McpStdioServerConfig extends ServerLimits {
  type?: "stdio";
  command: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  /**
   * Run the server in the daemon's sandbox (default true where bubblewrap works): the daemon's
   * home and database hidden, no host Unix socket, the host read-only but for the user's home,
   * the server's cwd and its workspace. False runs it unconfined, as the daemon's user.
   */
  sandbox?: boolean;
  /** Whether the sandboxed server may use the network (default true). */
  network?: boolean;
}

/** A server reached over Streamable HTTP. */
interface McpHttpServerConfig extends ServerLimits {
  type?: "http" | "streamable-http";
  url: string;
  headers?: Record<string, string>;
}

/** One entry of `mcpServers`, as written in config.json. */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** The `mcpServers` section: server name → entry. */
export type McpServersConfig = Record<string, McpServerConfig>;

/** What starting a server needs, placeholders expanded and defaults filled in. */
export type ResolvedServer =
  | {
      transport: "stdio";
      name: string;
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string | null;
      sandbox: boolean;
      network: boolean;
      /** The workspace `${workspace}` stood for, or null. */
      workspace: string | null;
      timeoutMs: number;
      startupTimeoutMs: number;
    }
  | {
      transport: "http";
      name: string;
      url: URL;
      headers: Record<string, string>;
      timeoutMs: number;
      startupTimeoutMs: number;
    };

/** An `mcpServers` entry that cannot be used; the message names the server and the field. */
export class McpConfigError extends Error {
  constructor(
    readonly server: string | null,
    message: string,
  ) {
    super(message);
    this.name = "McpConfigError";
  }
}

export const defaultCallTimeoutMs = 60_000;
export const defaultStartupTimeoutMs = 30_000;
const maxCallTimeoutMs = 3_600_000;
const maxStartupTimeoutMs = 600_000;

/**
 * Server names: a letter, then letters, digits, "_" or "-", at most 32, no "__". They start
 * every tool name (`<server>__<tool>`), so they must already fit every provider's rule.
 */
export function isMcpServerName(name: string): boolean {
  return /^[A-Za-z][A-Za-z0-9_-]{0,31}$/.test(name) && !name.includes("__");
}

const placeholder = /\$\{([^}]*)\}/g;
const envName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Validate the `mcpServers` value of config.json; throws McpConfigError naming the problem. */
export function parseMcpServers(value: unknown): McpServersConfig {
  const servers = asRecord(value);
  if (servers === null) throw new McpConfigError(null, `"mcpServers" must be an object of named servers`);
  // Null prototype: a server named "__proto__" must stay a plain key (it is refused below anyway).
  const result: McpServersConfig = Object.create(null);
  for (const [name, entry] of Object.entries(servers)) {
    if (!isMcpServerName(name)) {
      throw new McpConfigError(
        null,
        `MCP server name ${JSON.stringify(name)} must start with a letter and have at most 32 letters, digits, "_" or "-" (no "__")`,
      );
    }
    result[name] = parseServer(name, entry);
  }
  return result;
}

/** Validate one `mcpServers` entry (as `skein mcp add` builds it); throws McpConfigError. */
export function parseServer(name: string, value: unknown): McpServerConfig {
  const where = `MCP server "${name}"`;
  const fail = (reason: string): never => {
    throw new McpConfigError(name, `${where}: ${reason}`);
  };
  const entry = asRecord(value) ?? fail("expected an object with a command or a url");
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand === hasUrl) fail(`give either "command" (a local server) or "url" (a remote one)`);
  const limits = parseLimits(entry, fail);
  if (hasCommand) {
    checkKeys(
      entry,
      ["type", "command", "args", "env", "cwd", "sandbox", "network", "timeoutMs", "startupTimeoutMs"],
      fail,
    );
    if (entry.type !== undefined && entry.type !== "stdio")
      fail(`"type" must be "stdio" for a server with a command`);
    const command = nonEmptyString(entry.command, `"command"`, fail);
    checkPlaceholders(command, `"command"`, fail);
    const config: McpStdioServerConfig = { ...(entry.type === "stdio" ? { type: "stdio" } : {}), command };
    if (entry.args !== undefined) {
      if (!Array.isArray(entry.args) || !entry.args.every((arg) => typeof arg === "string")) {
        fail(`"args" must be an array of strings`);
      }
      const args = entry.args as string[];
      for (const arg of args) checkPlaceholders(arg, `"args"`, fail);
      config.args = [...args];
    }
    if (entry.env !== undefined) {
      config.env = templatedRecord(entry.env, "env", { pattern: envName, what: "variable name" }, fail);
    }
    if (entry.cwd !== undefined) {
      const cwd = nonEmptyString(entry.cwd, `"cwd"`, fail);
      checkPlaceholders(cwd, `"cwd"`, fail);
      if (!cwd.startsWith("${workspace}") && !isAbsolute(cwd)) {
        fail(`"cwd" must be an absolute path or start with \${workspace}`);
      }
      config.cwd = cwd;
    }
    for (const flag of ["sandbox", "network"] as const) {
      if (entry[flag] === undefined) continue;
      if (typeof entry[flag] !== "boolean") fail(`"${flag}" must be true or false`);
      config[flag] = entry[flag] as boolean;
    }
    return { ...config, ...limits };
  }
  checkKeys(entry, ["type", "url", "headers", "timeoutMs", "startupTimeoutMs"], fail);
  if (entry.type !== undefined && entry.type !== "http" && entry.type !== "streamable-http") {
    fail(`"type" must be "http" for a server with a url (SSE-only servers are not supported)`);
  }
  const url = nonEmptyString(entry.url, `"url"`, fail);
  checkPlaceholders(url, `"url"`, fail);
  if (!url.includes("${")) checkUrl(url, fail);
  const config: McpHttpServerConfig = {
    ...(entry.type === undefined ? {} : { type: entry.type as "http" | "streamable-http" }),
    url,
  };
  if (entry.headers !== undefined) {
    config.headers = templatedRecord(
      entry.headers,
      "headers",
      { pattern: headerName, what: "header name" },
      fail,
    );
  }
  return { ...config, ...limits };
}

/** Whether an entry mentions `${workspace}`: such a server runs once per workspace, not once per daemon. */
export function usesWorkspace(config: McpServerConfig): boolean {
  return allStrings(config).some((text) => text.includes("${workspace}"));
}

/** The transport of an entry. */
export function transportOf(config: McpServerConfig): "stdio" | "http" {
  return "command" in config ? "stdio" : "http";
}

/**
 * One entry ready to start: `${workspace}` replaced by `workspace` (required when the entry
 * uses it) and `${env:NAME}` by the daemon's variable, which must be set. Throws McpConfigError.
 */
export function resolveServer(
  name: string,
  config: McpServerConfig,
  context: { workspace: string | null; env: NodeJS.ProcessEnv },
): ResolvedServer {
  const expand = (text: string, field: string): string =>
    text.replace(placeholder, (_match, inner: string) => {
      if (inner === "workspace") {
        if (context.workspace === null) {
          throw new McpConfigError(
            name,
            `MCP server "${name}" uses \${workspace} in ${field}; give a workspace`,
          );
        }
        return context.workspace;
      }
      const variable = inner.slice("env:".length);
      const found = context.env[variable];
      if (found === undefined) {
        throw new McpConfigError(
          name,
          `MCP server "${name}" reads \${env:${variable}} in ${field}, which is not set in the daemon's environment`,
        );
      }
      return found;
    });
  const timeoutMs = config.timeoutMs ?? defaultCallTimeoutMs;
  const startupTimeoutMs = config.startupTimeoutMs ?? defaultStartupTimeoutMs;
  if ("command" in config) {
    return {
      transport: "stdio",
      name,
      command: expand(config.command, `"command"`),
      args: (config.args ?? []).map((arg) => expand(arg, `"args"`)),
      env: expandRecord(config.env, "env", expand),
      cwd: config.cwd === undefined ? null : expand(config.cwd, `"cwd"`),
      sandbox: config.sandbox ?? true,
      network: config.network ?? true,
      workspace: usesWorkspace(config) ? context.workspace : null,
      timeoutMs,
      startupTimeoutMs,
    };
  }
  const url = expand(config.url, `"url"`);
  checkUrl(url, (reason) => {
    throw new McpConfigError(name, `MCP server "${name}": ${reason}`);
  });
  return {
    transport: "http",
    name,
    url: new URL(url),
    headers: expandRecord(config.headers, "headers", expand),
    timeoutMs,
    startupTimeoutMs,
  };
}

function parseLimits(entry: Record<string, unknown>, fail: (reason: string) => never): ServerLimits {
  const limits: ServerLimits = {};
  if (entry.timeoutMs !== undefined) {
    limits.timeoutMs = integerIn(entry.timeoutMs, `"timeoutMs"`, maxCallTimeoutMs, fail);
  }
  if (entry.startupTimeoutMs !== undefined) {
    limits.startupTimeoutMs = integerIn(
      entry.startupTimeoutMs,
      `"startupTimeoutMs"`,
      maxStartupTimeoutMs,
      fail,
    );
  }
  return limits;
}

function integerIn(value: unknown, field: string, max: number, fail: (reason: string) => never): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1 || value > max) {
    fail(`${field} must be a whole number of milliseconds from 1 to ${max}`);
  }
  return value as number;
}

function checkPlaceholders(text: string, field: string, fail: (reason: string) => never): void {
  for (const match of text.matchAll(placeholder)) {
    const inner = match[1] ?? "";
    if (inner === "workspace") continue;
    if (inner.startsWith("env:") && envName.test(inner.slice(4))) continue;
    fail(`${field} has an unknown placeholder \${${inner}} (use \${workspace} or \${env:NAME})`);
  }
}

function checkUrl(url: string, fail: (reason: string) => never): void {
  const parsed = URL.canParse(url) ? new URL(url) : fail(`"url" ${JSON.stringify(url)} is not a valid URL`);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") fail(`"url" must be http:// or https://`);
}

function allStrings(config: McpServerConfig): string[] {
  if ("command" in config) {
    return [config.command, ...(config.args ?? []), ...Object.values(config.env ?? {}), config.cwd ?? ""];
  }
  return [config.url, ...Object.values(config.headers ?? {})];
}

function nonEmptyString(value: unknown, field: string, fail: (reason: string) => never): string {
  if (typeof value !== "string" || value.length === 0 || value.includes("\0")) {
    fail(`${field} must be a non-empty string`);
  }
  return value as string;
}

/**
 * A record of strings (`env`, `headers`) whose keys match `key.pattern` and whose values may hold
 * placeholders; a copy of it, or fail naming the field and, for a bad key or value, the key.
 */
function templatedRecord(
  value: unknown,
  field: "env" | "headers",
  key: { pattern: RegExp; what: string },
  fail: (reason: string) => never,
): Record<string, string> {
  const record = asRecord(value);
  if (record === null || !Object.values(record).every((item) => typeof item === "string")) {
    fail(`"${field}" must be an object of strings`);
  }
  const strings = { ...(record as Record<string, string>) };
  for (const [name, text] of Object.entries(strings)) {
    if (!key.pattern.test(name)) fail(`"${field}" has an invalid ${key.what} ${JSON.stringify(name)}`);
    checkPlaceholders(text, `"${field}"."${name}"`, fail);
  }
  return strings;
}

/** A templated record (`env`, `headers`) with every value's placeholders expanded. */
function expandRecord(
  record: Record<string, string> | undefined,
  field: "env" | "headers",
  expand: (text: string, field: string) => string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record ?? {}).map(([name, text]) => [name, expand(text, `"${field}"."${name}"`)]),
  );
}

function checkKeys(
  record: Record<string, unknown>,
  allowed: readonly string[],
  fail: (reason: string) => never,
) {
  for (const key of Object.keys(record)) {
    if (!allowed.includes(key)) fail(`unknown field ${JSON.stringify(key)}`);
  }
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}
