/**
 * An MCP `tools/call` result as a tool output: text parts verbatim, other parts described in a
 * line of text (tool results reach the model as text), `structuredContent` as JSON when there is
 * no content, `isError` kept, and the whole bounded like a built-in tool's output.
 *
 * Boundary rule: pure mapping; the size bound is the built-in tools' own (`truncateText`).
 */
import type { CallToolResult, ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import type { ToolOutput } from "../model/tools.js";
import { truncateText } from "../tools/output-limit.js";

/** The tool output for an MCP call result. */
export function toolOutputOf(result: CallToolResult): ToolOutput {
  const parts = result.content.map(describeBlock);
  if (parts.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent));
  }
  const output = truncateText(parts.join("\n"));
  return result.isError === true ? { output, is_error: true } : output;
}

function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type} ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown: tool results reach the model as text]`;
    case "resource_link":
      return `[resource link ${block.uri}${block.name === "" ? "" : ` (${block.name})`}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource) return `[resource ${resource.uri}]\n${resource.text}`;
      const mime = resource.mimeType === undefined ? "" : ` ${resource.mimeType}`;
      return `[resource ${resource.uri}${mime}, ${base64Bytes(resource.blob)} bytes, not shown]`;
    }
    default: {
      const unknown: never = block;
      return `[unsupported content ${JSON.stringify((unknown as { type?: unknown }).type)}]`;
    }
  }
}

/** The decoded size of base64 text, without decoding it. */
function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}
