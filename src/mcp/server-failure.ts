/**
 * What an MCP server's failures say: the error of a server that cannot be used now, and the
 * sentences for a start that failed, a call that failed and a process that ended, each naming
 * the server and why (exit code or signal, the end of its stderr, the non-JSON-RPC line it wrote).
 *
 * Boundary rule: text only; the instance decides what a failure does to its state.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { SandboxNetworkError } from "../tools/network-helper.js";
import { ProcessGroupTransport } from "./stdio-transport.js";

/** The server cannot be used now (its start failed, or it is waiting to restart). */
export class McpServerUnavailableError extends Error {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
    this.name = "McpServerUnavailableError";
  }
}

/** An error's message, or the thrown value as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** "the server exited with code 1; stderr: ..." (`when` goes after the verb: " before it was ready"). */
export function describeExit(transport: ProcessGroupTransport, when = ""): string {
  const exit = transport.exit;
  const how =
    exit === null
      ? "the server's output closed"
      : exit.signal !== null
        ? `the server was killed by ${exit.signal}`
        : `the server exited with code ${exit.code}`;
  const stderr = transport.stderrTail.trim();
  return stderr === "" ? `${how}${when}` : `${how}${when}; its stderr ends with: ${stderr.slice(-500)}`;
}

/** Whether a failed call means the transport itself failed (not an error the server answered). */
export function isTransportFailure(error: unknown): boolean {
  return !(error instanceof McpError);
}

/** Why tool `mcpName` of `server` failed; `lastError` is the server's last recorded failure. */
export function callFailureText(
  call: { server: string; mcpName: string; timeoutMs: number; lastError: string | undefined },
  error: unknown,
): string {
  const subject = `MCP server "${call.server}", tool "${call.mcpName}"`;
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout)
      return `${subject}: no answer within ${call.timeoutMs} ms; the call was cancelled`;
    if (error.code === ErrorCode.ConnectionClosed) {
      return `${subject}: the server stopped during the call (${call.lastError ?? "connection closed"}); it is restarted, and the call was not retried`;
    }
    return `${subject}: ${error.message}`;
  }
  return `${subject}: the connection failed (${errorText(error)})`;
}

/** Why a start failed: what the server wrote or how it ended, a timeout, or the error itself. */
export function startFailureText(
  start: { command: string; startupTimeoutMs: number; transport: Transport; signal: AbortSignal },
  error: unknown,
): string {
  const { transport, signal } = start;
  // The sandbox was killed for it: its exit says nothing.
  if (error instanceof SandboxNetworkError)
    return `its sandbox's network could not be set up: ${error.message}`;
  if (transport instanceof ProcessGroupTransport) {
    if (transport.badOutput !== null) {
      return `it wrote a line that is not JSON-RPC on stdout (${JSON.stringify(transport.badOutput)}); a stdio server must write only protocol messages there`;
    }
    if (transport.exit !== null) {
      if (transport.pid === null) return `cannot run ${JSON.stringify(start.command)}: ${errorText(error)}`;
      return describeExit(transport, " before it was ready");
    }
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return `it did not finish starting within ${start.startupTimeoutMs} ms`;
  }
  if (signal.aborted) return errorText(signal.reason);
  return errorText(error);
}
