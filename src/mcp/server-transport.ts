/**
 * How the daemon reaches one MCP server: a stdio process in its own process group, given only
 * the environment `serverEnvironment` allows, or a Streamable HTTP connection; and how that
 * connection is ended (an HTTP session is ended with DELETE, briefly awaited).
 *
 * Boundary rule: opens and closes transports; the instance owns them in between.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { ResolvedServer } from "../home/mcp-config.js";
import { unreachable } from "../model/unreachable.js";
import { serverEnvironment } from "./server-environment.js";
import { type McpSandbox, serverConfinement } from "./server-sandbox.js";
import { ProcessGroupTransport } from "./stdio-transport.js";

/** How long ending an HTTP session may delay a stop. */
const sessionEndTimeoutMs = 1_000;

/**
 * The transport of `server`; `daemonEnv` is the daemon's environment (a stdio server gets a few
 * of it); a stdio server runs in `sandbox` unless its config opts out.
 */
export function createTransport(
  server: ResolvedServer,
  daemonEnv: NodeJS.ProcessEnv,
  sandbox: McpSandbox | null,
): Transport {
  switch (server.transport) {
    case "stdio": {
      const confinement = serverConfinement(server, sandbox);
      return new ProcessGroupTransport({
        command: server.command,
        args: server.args,
        env: serverEnvironment(daemonEnv, server.env, confinement?.environment),
        cwd: server.cwd,
        confinement,
      });
    }
    case "http":
      return new StreamableHTTPClientTransport(server.url, { requestInit: { headers: server.headers } });
    default:
      unreachable(server, "unknown MCP transport");
  }
}

/** Ends a connection for good, quietly: its HTTP session, its client, its transport (and process group). */
export async function closeConnection(client: Client | null, transport: Transport | null): Promise<void> {
  if (client !== null) client.onclose = undefined;
  if (transport instanceof StreamableHTTPClientTransport) {
    await withTimeout(transport.terminateSession(), sessionEndTimeoutMs).catch(() => undefined);
  }
  await client?.close().catch(() => undefined);
  await transport?.close().catch(() => undefined);
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((done) => {
    timer = setTimeout(() => done(undefined), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
