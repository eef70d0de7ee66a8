/**
 * A Streamable HTTP MCP server built with the SDK, serving the test tools (test-tools.ts), one
 * SDK `Server` per MCP session. Listens on 127.0.0.1 (`--port N`, default a free port) and
 * prints `listening <url>` on stdout. `--require-header NAME=VALUE` refuses requests without it.
 */
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { installTestTools } from "./test-tools.js";

const args = process.argv.slice(2);
const port = args.includes("--port") ? Number(args[args.indexOf("--port") + 1]) : 0;
const required = args.includes("--require-header") ? args[args.indexOf("--require-header") + 1] : undefined;
const state = { extra: false };
const sessions = new Map<string, StreamableHTTPServerTransport>();

const http = createServer(async (request, response) => {
  if (required !== undefined) {
    const [name, value] = required.split("=") as [string, string];
    if (request.headers[name.toLowerCase()] !== value) {
      response.writeHead(401, { "content-type": "text/plain" }).end("missing header");
      return;
    }
  }
  const sessionId = request.headers["mcp-session-id"];
  let transport = typeof sessionId === "string" ? sessions.get(sessionId) : undefined;
  if (transport === undefined) {
    if (typeof sessionId === "string") {
      response.writeHead(404, { "content-type": "application/json" });
      response.end(
        JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null }),
      );
      return;
    }
    const created = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, created);
      },
    });
    created.onclose = () => {
      if (created.sessionId !== undefined) sessions.delete(created.sessionId);
    };
    const server = new Server(
      { name: "skein-test-http", version: "1.0.0" },
      { capabilities: { tools: { listChanged: true } } },
    );
    installTestTools(server, state);
    await server.connect(created);
    transport = created;
  }
  await transport.handleRequest(request, response);
});
http.listen(port, "127.0.0.1", () => {
  const address = http.address() as AddressInfo;
  process.stdout.write(`listening http://127.0.0.1:${address.port}/mcp\n`);
});
