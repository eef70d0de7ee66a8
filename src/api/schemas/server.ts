/**
 * The daemon's own resources on the wire, as TypeBox schemas and the types derived from them:
 * `GET /server`, `POST /server/shutdown` and the debug route.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString } from "./parts.js";

/**
 * How `run_command` is offered: inside bubblewrap (read-only host, writable workspace and /tmp,
 * network only when `network`), as a plain shell (the operator's opt-in), or not at all.
 */
export const ShellInfoSchema = closedObject(
  {
    mode: literalUnion("sandboxed", "unconfined", "off"),
    /** Sandboxed commands have an outbound-only network (SKEIN_SANDBOX_NETWORK=1 and slirp4netns found). */
    network: Type.Boolean(),
    /** One sentence saying how commands run, or why they cannot. */
    detail: Type.String(),
    /** What to do about it when commands cannot run or run less confined than usual, else null. */
    hint: NullableString,
  },
  { description: "how sessions' run_command runs" },
);
export type ShellInfo = Static<typeof ShellInfoSchema>;

/** `GET /server`. */
export const ServerInfoSchema = closedObject({
  instance_id: Type.String(),
  protocol: Type.Integer(),
  state: literalUnion("ready", "draining"),
  capabilities: Type.Record(Type.String(), Type.Integer(), {
    description: "feature name → the version of it the daemon speaks",
  }),
  version: Type.String(),
  /** How sessions' `run_command` runs (absent from older daemons). */
  shell: Type.Optional(ShellInfoSchema),
});
export type ServerInfo = Static<typeof ServerInfoSchema>;

/** Body of `POST /server/shutdown`. */
export const ShutdownBodySchema = closedObject({
  instance_id: Type.String(),
  /** How long running turns get before the process exits (default 5000, at most 300000). */
  timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 300_000 })),
});
export type ShutdownBody = Static<typeof ShutdownBodySchema>;

/** The 202 of `POST /server/shutdown`. */
export const ShutdownAnswerSchema = closedObject({
  instance_id: Type.String(),
  state: Type.Literal("draining"),
});
export type ShutdownAnswer = Static<typeof ShutdownAnswerSchema>;

/** `POST /debug/sessions/{id}/restart` (only with SKEIN_INSPECT=1). */
export const RestartAnswerSchema = closedObject({ result: Type.Literal("actor_stopped") });
export type RestartAnswer = Static<typeof RestartAnswerSchema>;

/** `GET /healthz` and `GET /readyz`: no data, only whether the probe passed. */
export const ProbeAnswerSchema = closedObject({
  status: literalUnion("ok", "unavailable"),
});
export type ProbeAnswer = Static<typeof ProbeAnswerSchema>;
