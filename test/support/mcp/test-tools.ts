/**
 * The tools of the test MCP servers (stdio and Streamable HTTP), written with the SDK's
 * low-level `Server` so their schemas and names can be anything a real server sends:
 * `echo`, `fail` (an error result), `slow` (sleeps, optionally writing a marker file first),
 * `crash` (the process exits mid-call), `add_tool` (adds `extra` and sends list_changed),
 * `env` (the variable names it got and its cwd), `big` (a large text), `picture` (an image),
 * a tool with dots, a slash and a colon in its name and a `$ref`/`$defs` schema, and one whose
 * name is longer than any provider accepts.
 *
 * Boundary rule: test support; it knows Skein only as an MCP client.
 */
import { appendFileSync } from "node:fs";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";

export const weirdToolName = "lookup.item/v2:by-id";
export const longToolName =
  "a_tool_whose_name_is_far_too_long_for_the_function_name_limits_of_every_provider";

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const object = (properties: Record<string, object>, required: string[] = []) => ({
  type: "object" as const,
  properties,
  required,
});

const baseTools: Tool[] = [
  {
    name: "echo",
    description: "Echo the text back.",
    inputSchema: object({ text: { type: "string" } }, ["text"]),
  },
  { name: "fail", description: "Always answers with an error result.", inputSchema: object({}) },
  {
    name: "slow",
    description: "Sleep for ms milliseconds; writes 'started' to the marker file first when given one.",
    inputSchema: object({ ms: { type: "number" }, marker: { type: "string" } }, ["ms"]),
  },
  {
    name: "crash",
    description: "The server process exits in the middle of this call.",
    inputSchema: object({ marker: { type: "string" } }),
  },
  {
    name: "add_tool",
    description: "Adds the tool 'extra' and announces the change.",
    inputSchema: object({}),
  },
  {
    name: "env",
    description: "The names of the server's environment variables and its cwd.",
    inputSchema: object({}),
  },
  {
    name: "big",
    description: "A text of the given size.",
    inputSchema: object({ bytes: { type: "integer" } }, ["bytes"]),
  },
  { name: "picture", description: "A tiny PNG image and a caption.", inputSchema: object({}) },
  {
    name: weirdToolName,
    description: "Look an item up by id.",
    inputSchema: {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      $defs: { ItemId: { type: "string", description: "An item id such as it-1." } },
      // A title beside $ref, as schema generators write it: Gemini refuses that unconverted.
      properties: { id: { $ref: "#/$defs/ItemId", title: "Item id", description: "The id to look up." } },
      required: ["id"],
      additionalProperties: false,
    },
  },
  { name: longToolName, description: "A tool with a very long name.", inputSchema: object({}) },
];

const extraTool: Tool = { name: "extra", description: "Added at run time.", inputSchema: object({}) };

/** Install the test tools on `server` (which must announce the `tools.listChanged` capability). */
export function installTestTools(server: Server, state: { extra: boolean } = { extra: false }): void {
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: state.extra ? [...baseTools, extraTool] : baseTools,
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (request.params.name) {
      case "echo":
        return text(String(args.text));
      case "fail":
        return { content: [{ type: "text", text: "it failed on purpose" }], isError: true };
      case "slow": {
        if (typeof args.marker === "string") appendFileSync(args.marker, "started\n");
        await new Promise((done) => setTimeout(done, Number(args.ms)));
        return text(`slept ${Number(args.ms)} ms`);
      }
      case "crash":
        if (typeof args.marker === "string") appendFileSync(args.marker, "crashed\n");
        process.stderr.write("about to crash on purpose\n");
        setTimeout(() => process.exit(3), 10);
        return new Promise<CallToolResult>(() => {});
      case "add_tool":
        state.extra = true;
        await server.sendToolListChanged();
        return text("added");
      case "env":
        return text(JSON.stringify({ names: Object.keys(process.env).sort(), cwd: process.cwd() }));
      case "big":
        return text("y".repeat(Number(args.bytes)));
      case "picture":
        return {
          content: [
            {
              type: "image",
              data: Buffer.from("not really a png").toString("base64"),
              mimeType: "image/png",
            },
            { type: "text", text: "a caption" },
          ],
        };
      case weirdToolName:
        return text(`item ${String(args.id)}`);
      case longToolName:
        return text("long name works");
      case "extra":
        return text("extra works");
      default:
        return { content: [{ type: "text", text: `unknown tool ${request.params.name}` }], isError: true };
    }
  });
}
