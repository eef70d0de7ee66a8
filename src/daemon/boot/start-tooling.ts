/** The tools every turn gets: the built-in kit (shell chosen once) and the MCP servers' manager. */
import { join } from "node:path";
import type pino from "pino";
import { packageVersion } from "../../home/package-version.js";
import { McpManager } from "../../mcp/mcp-manager.js";
import { type BuiltinToolKit, builtinToolKit } from "../../tools/builtin-tools.js";
import { probeNetworkHelper } from "../../tools/network-helper.js";
import { describeShellChoice } from "../../tools/shell-mode.js";
import type { ProviderConfigSource } from "../process/provider-config.js";
import type { DaemonSettings } from "../process/settings.js";

/** The built-in tool kit and the MCP manager, both built once for the daemon's life. */
export interface Tooling {
  toolKit: BuiltinToolKit;
  mcp: McpManager;
}

/** Build the tool kit (logging the shell it chose) and the MCP manager (servers start on first use). */
export function startTooling(options: {
  settings: DaemonSettings;
  env: NodeJS.ProcessEnv;
  providers: ProviderConfigSource;
  hiddenPaths: string[];
  logger: pino.Logger;
  now: () => number;
}): Tooling {
  const { settings, providers, logger } = options;
  // Hidden paths resolved and the shell chosen once for every turn's tools.
  const toolKit = builtinToolKit({
    hiddenPaths: options.hiddenPaths,
    env: options.env,
    // Read at each call: an edit of config.json applies without a restart.
    fetchAllowAddresses: () => providers.current().webFetch?.allowAddresses ?? [],
  });
  const shellChoice = toolKit.shell;
  const shell = describeShellChoice(shellChoice);
  if (shell.warning) logger.warn(shell.text);
  else logger.info(shell.text);
  // MCP servers run in the same sandbox as commands where it works, each with its own directory
  // under the home and, unless its entry says otherwise, an outbound-only network (mcp/server-sandbox.ts).
  const mcpSandbox =
    shellChoice.mode === "sandboxed"
      ? {
          bwrapPath: shellChoice.bwrapPath,
          filter: shellChoice.socketFilter,
          hidden: toolKit.hidden,
          stateRoot: join(settings.home, "mcp"),
          network: probeNetworkHelper(),
        }
      : null;
  if (mcpSandbox !== null && !mcpSandbox.network.usable) {
    logger.warn(`MCP servers with the network on will not start: ${mcpSandbox.network.reason}`);
  }
  if (mcpSandbox === null) logger.warn("MCP servers run unconfined: bubblewrap is not usable here");
  // MCP servers start on first use; each gets only the environment its config names.
  const mcp = new McpManager({
    config: () => ({
      servers: providers.current().mcpServers ?? {},
      error: providers.lastError?.message ?? null,
    }),
    env: options.env,
    sandbox: mcpSandbox,
    clientVersion: packageVersion(),
    logger,
    now: options.now,
  });
  return { toolKit, mcp };
}
