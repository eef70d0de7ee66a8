/** What an MCP server's failures say: each sentence names the server, the tool or the cause. */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { callFailureText, isTransportFailure, startFailureText } from "../../src/mcp/server-failure.js";
import { ProcessGroupTransport } from "../../src/mcp/stdio-transport.js";

const call = { server: "fs", mcpName: "read", timeoutMs: 500, lastError: undefined };

describe("MCP failure texts", () => {
  it("says a call timed out, was cut by the server's stop, or was refused by the server", () => {
    expect(callFailureText(call, new McpError(ErrorCode.RequestTimeout, "timed out"))).toBe(
      'MCP server "fs", tool "read": no answer within 500 ms; the call was cancelled',
    );
    expect(
      callFailureText(
        { ...call, lastError: "the server exited with code 3" },
        new McpError(ErrorCode.ConnectionClosed, "closed"),
      ),
    ).toBe(
      'MCP server "fs", tool "read": the server stopped during the call (the server exited with code 3); it is restarted, and the call was not retried',
    );
    const refused = new McpError(ErrorCode.InvalidParams, "no such file");
    expect(callFailureText(call, refused)).toBe(`MCP server "fs", tool "read": ${refused.message}`);
    expect(isTransportFailure(refused)).toBe(false);
  });

  it("tells a transport failure from an answer of the server", () => {
    const gone = new TypeError("fetch failed");
    expect(isTransportFailure(gone)).toBe(true);
    expect(callFailureText(call, gone)).toBe(
      'MCP server "fs", tool "read": the connection failed (fetch failed)',
    );
  });

  it("says why a start failed: a timeout, the abort's reason, or the error", () => {
    const transport = {} as Transport;
    const start = { command: "srv", startupTimeoutMs: 200, transport, signal: new AbortController().signal };
    expect(startFailureText(start, new McpError(ErrorCode.RequestTimeout, "timed out"))).toBe(
      "it did not finish starting within 200 ms",
    );
    expect(startFailureText(start, new Error("refused"))).toBe("refused");
    const aborted = new AbortController();
    aborted.abort(new Error("garbage on stdout"));
    expect(startFailureText({ ...start, signal: aborted.signal }, new Error("closed"))).toBe(
      "garbage on stdout",
    );
  });

  it("says a command that could not run could not run", async () => {
    const transport = new ProcessGroupTransport({
      command: "/nonexistent/mcp-server",
      args: [],
      env: {},
      cwd: null,
      confinement: null,
    });
    await transport.start().catch(() => undefined);
    await transport.exitWithin(2_000);
    const start = {
      command: "/nonexistent/mcp-server",
      startupTimeoutMs: 200,
      transport,
      signal: new AbortController().signal,
    };
    expect(startFailureText(start, new Error("spawn ENOENT"))).toBe(
      'cannot run "/nonexistent/mcp-server": spawn ENOENT',
    );
    await transport.close();
  });
});
