/**
 * The daemon's MCP servers: one `McpServerInstance` per configured server, shared by every
 * session that selected it (one per workspace for a server whose config uses `${workspace}`),
 * started on first use, stopped when its entry in config.json changes or goes, and all stopped
 * with the daemon.
 *
 * Boundary rule: the manager owns the instances; sessions get only tool definitions. It never
 * throws for a server that cannot start: the turn goes on with the tools that are there, and
 * the failure is in `status()` (GET /mcp) and the daemon's log.
 */

import type { McpServerStatus, McpStatus, McpTestReport } from "../api/mcp-status.js";
import {
  type McpServerConfig,
  type McpServersConfig,
  transportOf,
  usesWorkspace,
} from "../home/mcp-config.js";
import type { ToolDefinition } from "../model/tools.js";
import { mcpToolDefinition } from "./mcp-tool.js";
import type { McpLogger, McpServerInstance } from "./server-instance.js";
import type { McpSandbox } from "./server-sandbox.js";

/**
 * The SDK (and the zod schemas it builds when loaded) is loaded when the first server starts,
 * not with the daemon: most daemons run no MCP server, and start-up time is measured.
 */
let instanceModule: Promise<typeof import("./server-instance.js")> | null = null;
function loadInstanceModule(): Promise<typeof import("./server-instance.js")> {
  instanceModule ??= import("./server-instance.js");
  return instanceModule;
}

/** The `mcpServers` in force and, when config.json is broken, why (the last good one stays in force). */
interface McpConfigSnapshot {
  servers: McpServersConfig;
  error: string | null;
}

export interface McpManagerOptions {
  /** The current `mcpServers` (cheap; called on every use, so an edit applies without a restart). */
  config(): McpConfigSnapshot;
  /** The daemon's environment, for `${env:NAME}` and the few variables stdio servers inherit. */
  env: NodeJS.ProcessEnv;
  /** The sandbox stdio servers run in; null runs them unconfined (no working bubblewrap). */
  sandbox: McpSandbox | null;
  clientVersion: string;
  logger: McpLogger;
  now(): number;
}

/** `test` was asked for a server that is not configured. */
export class McpServerUnknownError extends Error {
  constructor(
    readonly server: string,
    configured: readonly string[],
  ) {
    super(
      `no MCP server named "${server}" is configured${configured.length > 0 ? ` (configured: ${configured.join(", ")})` : ""}`,
    );
    this.name = "McpServerUnknownError";
  }
}

interface Entry {
  /** The config the instance was started from (JSON, to notice an edit). */
  config: string;
  instance: McpServerInstance;
}

export class McpManager {
  readonly #options: McpManagerOptions;
  readonly #entries = new Map<string, Entry>();
  #stopped = false;

  constructor(options: McpManagerOptions) {
    this.#options = options;
  }

  /** The names of the configured servers. */
  serverNames(): string[] {
    return Object.keys(this.#options.config().servers);
  }

  /**
   * The tools of the selected servers for a session working in `workspace`, starting the
   * servers that do not run yet (in parallel). A server that cannot start, or is no longer
   * configured, adds no tools.
   */
  async toolsFor(selection: readonly string[], workspace: string): Promise<ToolDefinition[]> {
    if (selection.length === 0 || this.#stopped) return [];
    const servers = this.#sync();
    const { McpServerInstance } = await loadInstanceModule();
    const instances: McpServerInstance[] = [];
    for (const name of selection) {
      const config = servers[name];
      if (config === undefined) {
        this.#options.logger.warn(
          { mcpServer: name },
          "a session selected an MCP server that is not configured",
        );
        continue;
      }
      instances.push(this.#instance(McpServerInstance, name, config, workspace));
    }
    const ready = await Promise.all(
      instances.map((instance) =>
        instance.ensureReady().then(
          () => instance,
          () => null,
        ),
      ),
    );
    const definitions: ToolDefinition[] = [];
    for (const instance of ready) {
      if (instance === null) continue;
      for (const tool of instance.tools) definitions.push(mcpToolDefinition(instance, tool));
    }
    return definitions;
  }

  /** Start `name` now (ignoring its backoff) and report what it offers or why it failed. */
  async test(name: string, workspace: string | null): Promise<McpTestReport> {
    const servers = this.#sync();
    const config = servers[name];
    if (config === undefined) throw new McpServerUnknownError(name, Object.keys(servers));
    const { McpServerInstance } = await loadInstanceModule();
    const instance = this.#instance(McpServerInstance, name, config, workspace);
    const started = this.#options.now();
    let ok = true;
    try {
      await instance.ensureReady(true);
    } catch {
      ok = false;
    }
    return { name, ok, elapsed_ms: this.#options.now() - started, instance: instance.status() };
  }

  /** Every configured server and its instances, for GET /mcp. */
  status(): McpStatus {
    const { servers, error } = this.#options.config();
    this.#sync();
    const list: McpServerStatus[] = Object.entries(servers).map(([name, config]) => ({
      name,
      transport: transportOf(config),
      target: "command" in config ? [config.command, ...(config.args ?? [])].join(" ") : config.url,
      scope: usesWorkspace(config) ? "workspace" : "daemon",
      instances: [...this.#entries.entries()]
        .filter(([key]) => key.startsWith(`${name}\0`))
        .map(([, entry]) => entry.instance.status()),
    }));
    return { servers: list, config_error: error };
  }

  /** Stop every server (their process groups) and refuse to start more. */
  async stop(): Promise<void> {
    this.#stopped = true;
    const entries = [...this.#entries.values()];
    this.#entries.clear();
    await Promise.all(entries.map((entry) => entry.instance.stop()));
  }

  /** The instance of `name` for `workspace` (or the daemon-wide one), created when missing. */
  #instance(
    Instance: typeof McpServerInstance,
    name: string,
    config: McpServerConfig,
    workspace: string | null,
  ): McpServerInstance {
    const perWorkspace = usesWorkspace(config);
    const key = `${name}\0${perWorkspace ? (workspace ?? "") : ""}`;
    const existing = this.#entries.get(key);
    if (existing !== undefined) return existing.instance;
    const instance = new Instance({
      name,
      config,
      workspace: perWorkspace ? workspace : null,
      env: this.#options.env,
      sandbox: this.#options.sandbox,
      clientVersion: this.#options.clientVersion,
      logger: this.#options.logger,
      now: this.#options.now,
    });
    this.#entries.set(key, { config: JSON.stringify(config), instance });
    return instance;
  }

  /** Stop the instances whose server was removed from, or changed in, config.json; the current servers. */
  #sync(): McpServersConfig {
    const { servers } = this.#options.config();
    for (const [key, entry] of this.#entries) {
      const name = key.slice(0, key.indexOf("\0"));
      const config = servers[name];
      if (config !== undefined && JSON.stringify(config) === entry.config) continue;
      this.#entries.delete(key);
      this.#options.logger.info(
        { mcpServer: name },
        "MCP server's config changed or was removed; stopping it",
      );
      void entry.instance.stop();
    }
    return servers;
  }
}
