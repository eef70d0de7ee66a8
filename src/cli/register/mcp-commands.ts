/**
 * `skein mcp list|add|remove|test`: the MCP servers of config.json.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `mcp` and its subcommands on the program. */
export function registerMcpCommands(program: Command, wiring: CommandWiring): void {
  const mcp = program
    .command("mcp")
    .description("manage MCP servers, whose tools sessions' agents get ($SKEIN_HOME/config.json)")
    .addHelpText(
      "after",
      `
New sessions use every configured server (PUT /sessions/{id} may name some with mcp_servers).
A server starts when a session first uses it and is shared by all sessions; one whose command,
args, cwd or env mention \${workspace} runs once per workspace, with the session's workspace there.

Examples:
  $ skein mcp add fs -- npx -y @modelcontextprotocol/server-filesystem '\${workspace}'
  $ skein mcp add github --env 'GITHUB_PERSONAL_ACCESS_TOKEN=\${env:GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  $ skein mcp add remote --url https://mcp.example.com/mcp --header 'Authorization: Bearer \${env:REMOTE_TOKEN}'
  $ skein mcp test fs
  $ skein mcp list`,
    );
  mcp
    .command("list")
    .alias("ls")
    .description("list MCP servers: state, tools, last error (asks the daemon)")
    .option("--json", "print the daemon's GET /mcp answer")
    .action(lazyAction(wiring, () => import("../commands/mcp.js"), "listMcpServers"));
  mcp
    .command("add")
    .description("add (or replace) an MCP server: a command after --, or --url")
    .argument("<name>", 'server name (a letter, then letters, digits, "_" or "-"; at most 32)')
    .argument("[command...]", "the command that runs a stdio server, after --")
    .option("--url <url>", "a Streamable HTTP server's URL")
    .option(
      "--env <NAME=value...>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
      "environment of a stdio server (repeatable; ${env:NAME} reads the daemon's)",
    )
    .option("--header <header...>", 'HTTP header "Name: value" of a remote server (repeatable)')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
    .option("--cwd <dir>", "working directory of a stdio server (absolute, or ${workspace})")
    .option("--timeout-ms <ms>", "how long one tool call may take (default 60000)", wholeNumber)
    .action(lazyAction(wiring, () => import("../commands/mcp.js"), "addMcpServer"));
  mcp
    .command("remove")
    .alias("rm")
    .description("remove an MCP server (the daemon stops it)")
    .argument("<name>")
    .action(lazyAction(wiring, () => import("../commands/mcp.js"), "removeMcpServer"));
  mcp
    .command("test")
    .description("start a server in the daemon now and list its tools, or say why it fails")
    .argument("<name>")
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
    .option("--workspace <dir>", "the workspace for ${workspace} (default: the current directory)")
    .action(lazyAction(wiring, () => import("../commands/mcp.js"), "testMcpServer"));
}
