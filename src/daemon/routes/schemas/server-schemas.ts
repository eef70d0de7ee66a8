/**
 * Answer schemas of the daemon's own resources, verification, provider and MCP tests, browser
 * sign-in (each exactly its src/api type).
 */
import { Type } from "typebox";
import type { BrowserSession, LoginLink } from "../../../api/browser-login.js";
import type { ClusterInfo, ClusterNodeInfo } from "../../../api/cluster.js";
import type { McpInstanceStatus, McpStatus, McpTestReport } from "../../../api/mcp-status.js";
import type { ProviderTestAnswer } from "../../../api/provider-test.js";
import type { RestartAnswer, ServerInfo, ShutdownAnswer } from "../../../api/server.js";
import type { VerifyReport } from "../../../api/verify-report.js";
import { wireSchema } from "../../http/wire-schema.js";
import { named } from "./named-schema.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const closed = { additionalProperties: false } as const;

export const ServerInfoSchema = wireSchema<ServerInfo>()(
  Type.Object(
    {
      instance_id: Type.String(),
      protocol: Type.Integer(),
      state: Type.Union([Type.Literal("ready"), Type.Literal("draining")]),
      capabilities: Type.Record(Type.String(), Type.Integer(), {
        description: "feature name → the version of it the daemon speaks",
      }),
      version: Type.String(),
      shell: Type.Optional(
        Type.Object(
          {
            mode: Type.Union([Type.Literal("sandboxed"), Type.Literal("unconfined"), Type.Literal("off")]),
            network: Type.Boolean(),
            detail: Type.String(),
            hint: NullableString,
          },
          { ...closed, description: "how sessions' run_command runs" },
        ),
      ),
    },
    closed,
  ),
);

export const ShutdownAnswerSchema = wireSchema<ShutdownAnswer>()(
  Type.Object({ instance_id: Type.String(), state: Type.Literal("draining") }, closed),
);

export const RestartAnswerSchema = wireSchema<RestartAnswer>()(
  Type.Object({ result: Type.Literal("actor_stopped") }, closed),
);

export const VerifyReportSchema = named(
  "VerifyReport",
  wireSchema<VerifyReport>()(
    Type.Object(
      {
        session_id: Type.String(),
        status: Type.Union([Type.Literal("verified"), Type.Literal("corrupt")]),
        entries: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        head: Type.Union([
          Type.Null(),
          Type.Object(
            {
              position: Type.Integer({ minimum: 0 }),
              hash: Type.String(),
              signature: NullableString,
              key_id: NullableString,
              signature_status: Type.Union([
                Type.Literal("valid"),
                Type.Literal("invalid"),
                Type.Literal("unknown_key"),
                Type.Literal("unsigned"),
              ]),
            },
            closed,
          ),
        ]),
        problem: Type.Union([
          Type.Null(),
          Type.Object({ position: Type.Integer({ minimum: 0 }), reason: Type.String() }, closed),
        ]),
        signing_key: Type.Object({ key_id: Type.String(), public_key: Type.String() }, closed),
      },
      closed,
    ),
  ),
);

export const ProviderTestAnswerSchema = named(
  "ProviderTestAnswer",
  wireSchema<ProviderTestAnswer>()(
    Type.Object(
      {
        profile: Type.String(),
        protocol: Type.String(),
        model: Type.String(),
        base_url: Type.String(),
        api_key_env: NullableString,
        elapsed_ms: Type.Number({ minimum: 0 }),
        result: Type.Union([
          Type.Object(
            {
              ok: Type.Literal(true),
              text: Type.String(),
              usage: Type.Union([
                Type.Null(),
                Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }, closed),
              ]),
            },
            closed,
          ),
          Type.Object(
            {
              ok: Type.Literal(false),
              kind: Type.String(),
              status: Type.Union([Type.Integer(), Type.Null()]),
              message: Type.String(),
            },
            closed,
          ),
        ]),
      },
      closed,
    ),
  ),
);

const McpInstanceSchema = named(
  "McpInstanceStatus",
  wireSchema<McpInstanceStatus>()(
    Type.Object(
      {
        workspace: NullableString,
        state: Type.Union([
          Type.Literal("starting"),
          Type.Literal("ready"),
          Type.Literal("restarting"),
          Type.Literal("failed"),
          Type.Literal("stopped"),
        ]),
        pid: Type.Union([Type.Integer(), Type.Null()]),
        started_at: NullableString,
        restarts: Type.Integer({ minimum: 0 }),
        tools: Type.Array(
          Type.Object({ name: Type.String(), mcp_name: Type.String(), description: Type.String() }, closed),
        ),
        last_error: Type.Union([
          Type.Null(),
          Type.Object({ message: Type.String(), at: Type.String() }, closed),
        ]),
      },
      closed,
    ),
  ),
);

export const McpStatusSchema = named(
  "McpStatus",
  wireSchema<McpStatus>()(
    Type.Object(
      {
        servers: Type.Array(
          Type.Object(
            {
              name: Type.String(),
              transport: Type.Union([Type.Literal("stdio"), Type.Literal("http")]),
              target: Type.String(),
              scope: Type.Union([Type.Literal("daemon"), Type.Literal("workspace")]),
              instances: Type.Array(McpInstanceSchema),
            },
            closed,
          ),
        ),
        config_error: NullableString,
      },
      closed,
    ),
  ),
);

export const McpTestReportSchema = wireSchema<McpTestReport>()(
  Type.Object(
    {
      name: Type.String(),
      ok: Type.Boolean(),
      elapsed_ms: Type.Number({ minimum: 0 }),
      instance: McpInstanceSchema,
    },
    closed,
  ),
);

export const LoginLinkSchema = wireSchema<LoginLink>()(
  Type.Object({ url: Type.String(), expires_at: Type.String({ format: "date-time" }) }, closed),
);

export const BrowserSessionSchema = wireSchema<BrowserSession>()(
  Type.Object(
    {
      auth: Type.Union([Type.Literal("cookie"), Type.Literal("token")]),
      csrf_token: NullableString,
      expires_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
    },
    closed,
  ),
);

const ClusterNodeSchema = wireSchema<ClusterNodeInfo>()(
  Type.Object(
    {
      id: Type.String(),
      url: Type.String(),
      pid: Type.Integer(),
      self: Type.Boolean(),
      live: Type.Boolean(),
      started_at: Type.String({ format: "date-time" }),
      heartbeat_at: Type.String({ format: "date-time" }),
      heartbeat_age_ms: Type.Integer({ minimum: 0 }),
      stopped_at: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
      sessions_owned: Type.Integer({ minimum: 0 }),
      key_id: NullableString,
      key_trusted: Type.Boolean(),
      last_error: Type.Union([
        Type.Object({ message: Type.String(), at: Type.String({ format: "date-time" }) }, closed),
        Type.Null(),
      ]),
      profiles_digest: NullableString,
      profiles_match: Type.Boolean(),
    },
    closed,
  ),
);

export const ClusterInfoSchema = named(
  "ClusterInfo",
  wireSchema<ClusterInfo>()(
    Type.Object(
      {
        clustered: Type.Boolean(),
        node_id: NullableString,
        lease_seconds: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
        nodes: Type.Array(ClusterNodeSchema),
      },
      closed,
    ),
  ),
);
