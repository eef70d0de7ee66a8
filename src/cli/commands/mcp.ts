// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} and ${env:NAME} are config placeholders
/**
 * `skein mcp list|add|remove|test`: the MCP servers in `$SKEIN_HOME/config.json` and how they
 * run in the daemon.
 *
 * Boundary rule: `add` and `remove` edit the file through the same config module as `skein
 * config` (one validator, atomic 0600 writes; the running daemon notices by itself), or, when
 * the daemon runs on PostgreSQL, the cluster's shared config through it (shared-config.ts). `list`
 * and `test` ask the daemon (GET /mcp, POST /mcp/{name}/test), so what they show is what the
 * daemon sees in its own environment.
 */
import { mkdirSync } from "node:fs";
import type { McpInstanceStatus, McpServerStatus } from "../../api/mcp-status.js";
import { McpConfigError, type McpServerConfig, parseServer } from "../../home/mcp-config.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { type Paint, writeLine } from "../render/terminal.js";
import { parseHeaders, readConfig, saveProviderConfig } from "./provider-config.js";
import { changeSharedMcpServer, sharedConfigOf } from "./shared-config.js";

export interface AddMcpServerOptions {
  url?: string;
  env?: string[];
  header?: string[];
  cwd?: string;
  timeoutMs?: number;
}

/** `skein mcp add NAME [--url URL | -- COMMAND ARGS...]`: add or replace a server. */
export async function addMcpServer(
  context: CliContext,
  name: string,
  command: readonly string[],
  options: AddMcpServerOptions,
): Promise<ExitCode> {
  if ((options.url === undefined) === (command.length === 0)) {
    throw new CliError(
      "give a command to run (after --) or --url, not both",
      exitCodes.usage,
      "e.g. `skein mcp add fs -- npx -y @modelcontextprotocol/server-filesystem '${workspace}'`",
    );
  }
  const entry: Record<string, unknown> =
    options.url === undefined
      ? { command: command[0], ...(command.length > 1 ? { args: command.slice(1) } : {}) }
      : { url: options.url };
  if (options.env !== undefined && options.env.length > 0) entry.env = parseEnv(options.env);
  if (options.header !== undefined && options.header.length > 0) entry.headers = parseHeaders(options.header);
  if (options.cwd !== undefined) entry.cwd = options.cwd;
  if (options.timeoutMs !== undefined) entry.timeoutMs = options.timeoutMs;
  let server: McpServerConfig;
  try {
    server = parseServer(name, entry);
  } catch (error) {
    if (error instanceof McpConfigError) throw new CliError(error.message, exitCodes.usage);
    throw error;
  }
  const shared = await sharedConfigOf(context);
  if (shared !== null) {
    try {
      return await changeSharedMcpServer(context, shared, name, entry);
    } finally {
      shared.client.close();
    }
  }
  mkdirSync(context.home, { recursive: true, mode: 0o700 });
  const config = readConfig(context.home);
  const replaced = config.mcpServers !== undefined && Object.hasOwn(config.mcpServers, name);
  await saveProviderConfig(context, { ...config, mcpServers: { ...config.mcpServers, [name]: server } });
  writeLine(
    context.terminal.out,
    `${replaced ? "replaced" : "added"} MCP server "${name}" (${describeTarget(server)}); new sessions use it`,
  );
  writeLine(context.terminal.out, context.terminal.out.paint.dim(`check it with \`skein mcp test ${name}\``));
  return exitCodes.ok;
}

/** `skein mcp remove NAME`. */
export async function removeMcpServer(context: CliContext, name: string): Promise<ExitCode> {
  const shared = await sharedConfigOf(context);
  if (shared !== null) {
    const isShared = shared.view.shared_entries.some(
      (entry) => entry.section === "mcpServers" && entry.name === name,
    );
    try {
      // A server of this node's own config.json is removed there, on this node only.
      if (isShared) return await changeSharedMcpServer(context, shared, name, undefined);
    } finally {
      shared.client.close();
    }
  }
  const config = readConfig(context.home);
  if (config.mcpServers === undefined || !Object.hasOwn(config.mcpServers, name)) {
    throw new CliError(`no MCP server named "${name}"`, exitCodes.notFound);
  }
  const mcpServers = { ...config.mcpServers };
  delete mcpServers[name];
  await saveProviderConfig(context, { ...config, mcpServers });
  writeLine(context.terminal.out, `removed MCP server "${name}" (the daemon stops it)`);
  return exitCodes.ok;
}

/** `skein mcp list`: every configured server, as the daemon runs it. */
export async function listMcpServers(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const status = await client.mcpStatus();
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(out, JSON.stringify(status, null, 2));
      return exitCodes.ok;
    }
    if (status.config_error !== null) writeLine(context.terminal.err, out.paint.yellow(status.config_error));
    if (status.servers.length === 0) {
      writeLine(out, "no MCP servers yet; add one with `skein mcp add` (see `skein mcp add --help`)");
      return exitCodes.ok;
    }
    for (const server of status.servers) {
      for (const line of serverLines(server, out.paint)) writeLine(out, line);
    }
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** `skein mcp test NAME`: the daemon starts the server now and reports its tools or why it failed. */
export async function testMcpServer(
  context: CliContext,
  name: string,
  options: { workspace?: string },
): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const report = await client.testMcpServer(name, options.workspace ?? context.cwd);
    const { out, err } = context.terminal;
    const instance = report.instance;
    if (!report.ok) {
      writeLine(
        err,
        `${err.paint.red("failed")}  ${name}: ${instance.last_error?.message ?? "it did not start"}`,
      );
      return exitCodes.error;
    }
    writeLine(
      out,
      `${out.paint.green("ok")}  ${name}: ready in ${report.elapsed_ms} ms${instance.pid === null ? "" : ` (pid ${instance.pid})`}, ${instance.tools.length} tools`,
    );
    for (const tool of instance.tools) {
      const renamed =
        tool.name === `${name}__${tool.mcp_name}` ? "" : out.paint.dim(` (on the server: ${tool.mcp_name})`);
      writeLine(out, `  ${tool.name}${renamed}  ${out.paint.dim(firstLine(tool.description))}`);
    }
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

function serverLines(server: McpServerStatus, paint: Paint): string[] {
  const head = `${paint.bold(server.name)}  ${server.transport}  ${paint.dim(server.target)}`;
  if (server.instances.length === 0)
    return [`${head}  ${paint.dim("not started (starts when a session first uses it)")}`];
  if (server.scope === "daemon")
    return [
      `${head}  ${instanceSummary(server.instances[0]!, paint)}`,
      ...errorLine(server.instances[0]!, paint),
    ];
  return [
    `${head}  ${paint.dim("one per workspace")}`,
    ...server.instances.flatMap((instance) => [
      `  ${instance.workspace}  ${instanceSummary(instance, paint)}`,
      ...errorLine(instance, paint),
    ]),
  ];
}

function instanceSummary(instance: McpInstanceStatus, paint: Paint): string {
  const state =
    instance.state === "ready"
      ? paint.green("ready")
      : instance.state === "failed"
        ? paint.red("failed")
        : paint.yellow(instance.state);
  const restarts = instance.restarts > 0 ? `, ${instance.restarts} restarts` : "";
  return `${state}  ${instance.tools.length} tools${restarts}`;
}

function errorLine(instance: McpInstanceStatus, paint: Paint): string[] {
  if (instance.last_error === null) return [];
  return [
    `    ${paint.red("last error")} ${paint.dim(`(${instance.last_error.at})`)}: ${instance.last_error.message}`,
  ];
}

function describeTarget(server: McpServerConfig): string {
  return "command" in server ? [server.command, ...(server.args ?? [])].join(" ") : server.url;
}

function parseEnv(values: readonly string[]): Record<string, string> {
  const env: Record<string, string> = {};
  for (const value of values) {
    const split = value.indexOf("=");
    if (split <= 0) throw new CliError(`--env "${value}" must look like "NAME=value"`, exitCodes.usage);
    env[value.slice(0, split)] = value.slice(split + 1);
  }
  return env;
}

function firstLine(text: string): string {
  const line = text.split("\n", 1)[0] ?? "";
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}
