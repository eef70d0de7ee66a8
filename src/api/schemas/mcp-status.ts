/**
 * What `GET /mcp` answers and `POST /mcp/{name}/test` reports, as TypeBox schemas and the types
 * derived from them: the configured MCP servers, each running instance's state, its tools (with
 * the names the model sees) and its last error.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, namedObject } from "./parts.js";

/**
 * Where an instance is in its life: `starting` (being spawned or connected, initialized, its
 * tools listed), `ready`, `restarting` (it crashed or lost its connection; a restart is
 * scheduled), `failed` (its last start failed; the next use tries again once the backoff has
 * passed), `stopped`.
 */
const McpServerStateSchema = literalUnion("starting", "ready", "restarting", "failed", "stopped");
export type McpServerState = Static<typeof McpServerStateSchema>;

const McpToolStatusSchema = closedObject({
  /** The name the model sees (`<server>__<tool>`). */
  name: Type.String(),
  /** The tool's name on the server. */
  mcp_name: Type.String(),
  description: Type.String(),
});

const McpErrorStatusSchema = closedObject({ message: Type.String(), at: Type.String() });
export type McpErrorStatus = Static<typeof McpErrorStatusSchema>;

/** One running (or failed) server process or connection. */
const McpInstanceStatusSchema = namedObject("McpInstanceStatus", {
  /** The workspace it was started for (servers whose config uses `${workspace}`), else null. */
  workspace: NullableString,
  state: McpServerStateSchema,
  /** The process id of a stdio server while it runs. */
  pid: Type.Union([Type.Integer(), Type.Null()]),
  started_at: NullableString,
  /** Restarts after a crash since the daemon started. */
  restarts: Type.Integer({ minimum: 0 }),
  tools: Type.Array(McpToolStatusSchema),
  last_error: Type.Union([Type.Null(), McpErrorStatusSchema]),
});
export type McpInstanceStatus = Static<typeof McpInstanceStatusSchema>;

/** One entry of `mcpServers`. */
const McpServerStatusSchema = closedObject({
  name: Type.String(),
  transport: literalUnion("stdio", "http"),
  /** The command line or the URL, for display (header values and env are not shown). */
  target: Type.String(),
  /** "daemon": one instance shared by every session; "workspace": one per workspace. */
  scope: literalUnion("daemon", "workspace"),
  /** Empty until a session first uses the server. */
  instances: Type.Array(McpInstanceStatusSchema),
});
export type McpServerStatus = Static<typeof McpServerStatusSchema>;

/** The answer of `GET /mcp`. */
export const McpStatusSchema = namedObject("McpStatus", {
  servers: Type.Array(McpServerStatusSchema),
  /** Why config.json is not in use (the last good one is), or null. */
  config_error: NullableString,
});
export type McpStatus = Static<typeof McpStatusSchema>;

/** The answer of `POST /mcp/{name}/test`: the server started (or not) and what it offers. */
export const McpTestReportSchema = closedObject({
  name: Type.String(),
  ok: Type.Boolean(),
  /** Milliseconds from the start (spawn or connect) to the tool list. */
  elapsed_ms: Type.Number({ minimum: 0 }),
  instance: McpInstanceStatusSchema,
});
export type McpTestReport = Static<typeof McpTestReportSchema>;

/** Body of `POST /mcp/{name}/test`. */
export const McpTestBodySchema = closedObject({
  /** The workspace to start a per-workspace server for. */
  workspace: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
});
export type McpTestBody = Static<typeof McpTestBodySchema>;
