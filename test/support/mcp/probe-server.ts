/**
 * A stdio MCP server with one tool, `probe`: what the server can reach and touch from where it
 * runs (TCP connections, writes, reads; see ../network-probe.mjs), for the sandbox's tests.
 *
 * Boundary rule: test support; it knows Skein only as an MCP client.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { type ProbeRequest, probe } from "../network-probe.mjs";

const server = new Server({ name: "skein-probe", version: "1.0.0" }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({
  tools: [
    {
      name: "probe",
      description: "Try TCP connections, writes and reads; report each outcome.",
      inputSchema: {
        type: "object",
        properties: {
          tcp: {
            type: "array",
            items: {
              type: "object",
              properties: { host: { type: "string" }, port: { type: "integer" } },
              required: ["host", "port"],
            },
          },
          write: { type: "array", items: { type: "string" } },
          read: { type: "array", items: { type: "string" } },
        },
      },
    },
  ],
}));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const report = await probe((request.params.arguments ?? {}) as ProbeRequest);
  return { content: [{ type: "text", text: JSON.stringify(report) }] };
});
await server.connect(new StdioServerTransport());
process.stdin.on("end", () => process.exit(0));
