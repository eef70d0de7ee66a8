/**
 * The names models see for MCP tools: `<server>__<tool>`, made to fit the strictest of the
 * providers' rules. OpenAI (Chat Completions and Responses) and Anthropic take
 * `^[a-zA-Z0-9_-]{1,64}$`; Gemini also allows "." and ":" but wants a letter or "_" first and at
 * most 64 characters. Together: `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
 *
 * Boundary rule: a pure, deterministic function of the server and tool names, so a name in a
 * session's log means the same tool after a restart. A tool name that had to change (characters
 * replaced, or cut to fit) gets a short hash of the original, so two tools never share a name.
 */
import { createHash } from "node:crypto";

/** What every provider accepts as a tool name. */
export const portableToolName = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/;

const maxLength = 64;
const hashLength = 8;

/** The model-facing name of `tool` on `server` (a name `isMcpServerName` accepts). */
export function mcpToolName(server: string, tool: string): string {
  const prefix = `${server}__`;
  const cleaned = tool.replace(/[^A-Za-z0-9_-]/g, "_");
  const plain = `${prefix}${cleaned}`;
  if (cleaned === tool && tool.length > 0 && plain.length <= maxLength) return plain;
  const suffix = `_${createHash("sha256").update(tool, "utf8").digest("hex").slice(0, hashLength)}`;
  return `${plain.slice(0, maxLength - suffix.length)}${suffix}`;
}
