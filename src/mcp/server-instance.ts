/**
 * One MCP server as the daemon runs it: a stdio process (in its own process group) or a
 * Streamable HTTP connection, with an SDK client on top, its tool list, and its life — started
 * on first use, restarted with backoff after a crash, its tools re-listed on
 * `notifications/tools/list_changed`, stopped with its process group.
 *
 * Boundary rule: a call never hangs and never throws for the server's failures. A call in
 * flight when the server dies, times out, or cannot be reached ends as an error result naming
 * the server and why; only the caller's own cancellation rejects.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type CallToolResult, ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { McpErrorStatus, McpInstanceStatus, McpServerState } from "../api/mcp-status.js";
import {
  defaultCallTimeoutMs,
  defaultStartupTimeoutMs,
  type McpServerConfig,
  resolveServer,
} from "../home/mcp-config.js";
import type { JsonObject } from "../model/json.js";
import type { ToolOutput } from "../model/tools.js";
import {
  callFailureText,
  describeExit,
  errorText,
  isTransportFailure,
  McpServerUnavailableError,
  startFailureText,
} from "./server-failure.js";
import type { McpSandbox } from "./server-sandbox.js";
import { listServerTools, type McpToolInfo } from "./server-tools.js";
import { closeConnection, createTransport } from "./server-transport.js";
import { ProcessGroupTransport } from "./stdio-transport.js";
import { toolOutputOf } from "./tool-result.js";

/** The daemon's logger, as far as MCP uses it (pino's shape). */
export interface McpLogger {
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
}

export interface InstanceOptions {
  name: string;
  /** The server's entry in `mcpServers`; its placeholders are expanded at each start. */
  config: McpServerConfig;
  /** The workspace the instance runs for, when its config uses `${workspace}`. */
  workspace: string | null;
  /** The daemon's environment: a stdio server inherits only a few harmless variables of it. */
  env: NodeJS.ProcessEnv;
  /** The sandbox stdio servers run in (null: unconfined, where bubblewrap does not work). */
  sandbox: McpSandbox | null;
  /** The version the client reports in `initialize`. */
  clientVersion: string;
  logger: McpLogger;
  now(): number;
}

/** Backoff after the n-th consecutive failure: 0.5 s, 1 s, 2 s, ... at most 30 s. */
export function restartDelayMs(failures: number): number {
  return Math.min(500 * 2 ** Math.max(0, failures - 1), 30_000);
}

/** A server that stayed up this long before crashing starts its backoff afresh. */
const stableUptimeMs = 10_000;
/** After this many failures in a row a crashed server is restarted only when next used. */
const maxEagerRestarts = 5;
/** A call arriving while a restart is due within this long waits for it. */
const waitForRestartMs = 5_000;

export class McpServerInstance {
  readonly name: string;
  readonly workspace: string | null;
  readonly #options: InstanceOptions;
  #state: McpServerState = "stopped";
  #client: Client | null = null;
  #transport: Transport | null = null;
  #tools: McpToolInfo[] = [];
  #lastError: McpErrorStatus | null = null;
  #failures = 0;
  #restarts = 0;
  #startedAt: number | null = null;
  #nextAttemptAt = 0;
  #starting: Promise<void> | null = null;
  #restartTimer: NodeJS.Timeout | null = null;
  #stopped = false;

  constructor(options: InstanceOptions) {
    this.#options = options;
    this.name = options.name;
    this.workspace = options.workspace;
  }

  get state(): McpServerState {
    return this.#state;
  }

  /** The tools of the last successful listing. */
  get tools(): readonly McpToolInfo[] {
    return this.#tools;
  }

  /**
   * Start the server unless it runs. Throws McpServerUnavailableError when it cannot start, or
   * when its last failure is more recent than the backoff allows (`force` ignores the backoff).
   */
  async ensureReady(force = false): Promise<void> {
    for (;;) {
      if (this.#stopped)
        throw new McpServerUnavailableError(this.name, `MCP server "${this.name}" was stopped`);
      if (this.#state === "ready") return;
      if (this.#starting !== null) return this.#starting;
      const wait = this.#nextAttemptAt - this.#options.now();
      if (wait > 0 && !force) {
        if (this.#restartTimer === null || wait > waitForRestartMs) {
          throw new McpServerUnavailableError(
            this.name,
            `MCP server "${this.name}" is unavailable (${this.#lastError?.message ?? "not started"}); ` +
              `it is tried again in ${Math.ceil(wait / 1000)} s`,
          );
        }
        await sleep(wait);
        continue;
      }
      this.#cancelRestart();
      this.#starting = this.#start().finally(() => {
        this.#starting = null;
      });
      return this.#starting;
    }
  }

  /** Call one of the server's tools; failures of the server become error results. */
  async callTool(mcpName: string, args: JsonObject, signal: AbortSignal): Promise<ToolOutput> {
    try {
      await this.ensureReady();
    } catch (error) {
      return { output: errorText(error), is_error: true };
    }
    const client = this.#client;
    if (client === null) return { output: `MCP server "${this.name}" is not running`, is_error: true };
    const timeoutMs = this.#callTimeoutMs;
    // A signal of this call alone: the SDK never removes its abort listener, so the turn's own
    // signal would collect one per call and, once aborted, cancel calls that ended long ago.
    const call = new AbortController();
    const forward = () => call.abort(signal.reason);
    signal.addEventListener("abort", forward, { once: true });
    try {
      const result = await client.callTool({ name: mcpName, arguments: args }, undefined, {
        signal: call.signal,
        timeout: timeoutMs,
      });
      return toolOutputOf(result as CallToolResult);
    } catch (error) {
      if (signal.aborted) throw error;
      return { output: this.#callFailure(mcpName, error, timeoutMs), is_error: true };
    } finally {
      signal.removeEventListener("abort", forward);
    }
  }

  /** Stop for good: the process group (or the HTTP session) is ended; later calls fail. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#cancelRestart();
    await this.#starting?.catch(() => undefined);
    this.#state = "stopped";
    await this.#disconnect();
  }

  /** This instance as `GET /mcp` shows it. */
  status(): McpInstanceStatus {
    const pid = this.#transport instanceof ProcessGroupTransport ? this.#transport.pid : null;
    return {
      workspace: this.workspace,
      state: this.#state,
      pid: this.#state === "ready" ? pid : null,
      started_at: this.#startedAt === null ? null : new Date(this.#startedAt).toISOString(),
      restarts: this.#restarts,
      tools: this.#tools.map((tool) => ({
        name: tool.name,
        mcp_name: tool.mcpName,
        description: tool.description,
      })),
      last_error: this.#lastError,
    };
  }

  get #callTimeoutMs(): number {
    return this.#options.config.timeoutMs ?? defaultCallTimeoutMs;
  }

  get #startupTimeoutMs(): number {
    return this.#options.config.startupTimeoutMs ?? defaultStartupTimeoutMs;
  }

  async #start(): Promise<void> {
    const { logger } = this.#options;
    this.#state = "starting";
    let transport: Transport;
    try {
      const server = resolveServer(this.name, this.#options.config, {
        workspace: this.workspace,
        env: this.#options.env,
      });
      transport = createTransport(server, this.#options.env, this.#options.sandbox);
    } catch (error) {
      this.#fail(errorText(error));
      throw new McpServerUnavailableError(this.name, errorText(error));
    }
    const client = new Client({ name: "skein", version: this.#options.clientVersion }, { capabilities: {} });
    const abort = new AbortController();
    const startedAt = this.#options.now();
    client.onerror = (error) => {
      // Garbage on stdout while starting is a broken server, not noise to wait out.
      if (this.#state === "starting" && transport instanceof ProcessGroupTransport && transport.badOutput) {
        abort.abort(error);
      }
    };
    try {
      await client.connect(transport, { timeout: this.#startupTimeoutMs, signal: abort.signal });
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => this.#refreshTools(client));
      const tools = await listServerTools(client, this.name, {
        timeout: this.#startupTimeoutMs,
        signal: abort.signal,
      });
      if (this.#stopped) throw new Error("stopped while starting");
      this.#client = client;
      this.#transport = transport;
      this.#tools = tools;
      this.#startedAt = startedAt;
      this.#state = "ready";
      client.onclose = () => this.#lost(client, "the connection closed");
      logger.info(
        { mcpServer: this.name, workspace: this.workspace, tools: tools.length },
        "MCP server ready",
      );
    } catch (error) {
      // A server that exits at once fails our first write (EPIPE) before its exit is seen.
      if (transport instanceof ProcessGroupTransport) await transport.exitWithin(500);
      const message = startFailureText(
        {
          command: this.#command(),
          startupTimeoutMs: this.#startupTimeoutMs,
          transport,
          signal: abort.signal,
        },
        error,
      );
      client.onclose = undefined;
      await client.close().catch(() => undefined);
      await transport.close().catch(() => undefined);
      this.#fail(message);
      logger.warn(
        { mcpServer: this.name, workspace: this.workspace, err: message },
        "MCP server failed to start",
      );
      throw new McpServerUnavailableError(this.name, `MCP server "${this.name}" failed to start: ${message}`);
    }
  }

  async #refreshTools(client: Client): Promise<void> {
    if (client !== this.#client) return;
    try {
      this.#tools = await listServerTools(client, this.name, { timeout: this.#startupTimeoutMs });
      this.#options.logger.info(
        { mcpServer: this.name, tools: this.#tools.length },
        "MCP server's tools changed",
      );
    } catch (error) {
      this.#lastError = {
        message: `listing its tools again failed: ${errorText(error)}`,
        at: this.#isoNow(),
      };
    }
  }

  /** The connection of a ready server ended without a stop: record why, schedule a restart. */
  #lost(client: Client, fallback: string): void {
    if (client !== this.#client || this.#stopped) return;
    const transport = this.#transport;
    const reason = transport instanceof ProcessGroupTransport ? describeExit(transport) : fallback;
    this.#client = null;
    const uptime = this.#options.now() - (this.#startedAt ?? 0);
    if (uptime >= stableUptimeMs) this.#failures = 0;
    this.#fail(reason);
    this.#restarts++;
    this.#state = "restarting";
    this.#options.logger.warn(
      { mcpServer: this.name, workspace: this.workspace, err: reason },
      "MCP server crashed",
    );
    void transport?.close().catch(() => undefined);
    this.#transport = null;
    if (this.#failures > maxEagerRestarts) {
      this.#state = "failed";
      return;
    }
    this.#restartTimer = setTimeout(
      () => {
        this.#restartTimer = null;
        // Forced: the timer is the backoff (and may fire a millisecond before the clock says so).
        this.ensureReady(true).catch(() => undefined);
      },
      Math.max(0, this.#nextAttemptAt - this.#options.now()),
    );
    this.#restartTimer.unref();
  }

  #fail(message: string): void {
    this.#failures++;
    this.#state = "failed";
    this.#lastError = { message, at: this.#isoNow() };
    this.#nextAttemptAt = this.#options.now() + restartDelayMs(this.#failures);
  }

  #callFailure(mcpName: string, error: unknown, timeoutMs: number): string {
    const text = callFailureText(
      { server: this.name, mcpName, timeoutMs, lastError: this.#lastError?.message },
      error,
    );
    // The transport failing (an HTTP server gone, a session it forgot): reconnect next time.
    const client = this.#client;
    if (isTransportFailure(error) && client !== null) {
      this.#lost(client, `the connection failed: ${errorText(error)}`);
    }
    return text;
  }

  #command(): string {
    const config = this.#options.config;
    return "command" in config ? config.command : config.url;
  }

  async #disconnect(): Promise<void> {
    const client = this.#client;
    const transport = this.#transport;
    this.#client = null;
    this.#transport = null;
    await closeConnection(client, transport);
  }

  #cancelRestart(): void {
    if (this.#restartTimer !== null) clearTimeout(this.#restartTimer);
    this.#restartTimer = null;
  }

  #isoNow(): string {
    return new Date(this.#options.now()).toISOString();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
