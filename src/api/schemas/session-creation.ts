/**
 * How a session comes to be, as TypeBox schemas and the types derived from them: the body of
 * `PUT /sessions/{id}` (a new session or a fork) and the record a summary and a snapshot show of
 * it (`creation`). A snapshot's `submitted` is the body schema itself, so what it echoes has the
 * shape the route accepts.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { ApprovalPolicySchema } from "./approvals.js";
import { FirstInputSchema } from "./inputs.js";
import { named } from "./named-schema.js";
import { closedObject, NullableString } from "./parts.js";
import { RequestConfigSchema } from "./session-settings.js";

const NewSessionSchema = closedObject({
  kind: Type.Literal("new"),
  /** An existing absolute directory, neither the daemon's home nor inside it. */
  workspace: Type.String({ minLength: 1, maxLength: 4096 }),
  name: Type.Optional(Type.String({ maxLength: 256 })),
  /** Default: config.json's `active` profile. */
  provider_profile: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  /** Default: the profile's model. */
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  system_prompt: Type.Optional(Type.String({ maxLength: 65_536 })),
  /** The MCP servers its agent gets (names from config.json); default: every configured one. */
  mcp_servers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 })),
  /** Model parameters; default: the profile's. */
  request_config: Type.Optional(RequestConfigSchema),
  /** The session's own approval policy; default: none (config.json's applies). */
  approval_policy: Type.Optional(ApprovalPolicySchema),
  /**
   * The session's first input, admitted in the creation's own commit (its turn starts from it);
   * its receipt is the 201's `input`. Not part of a snapshot's `submitted`.
   */
  input: Type.Optional(FirstInputSchema),
});

const ForkSessionSchema = closedObject({
  kind: Type.Literal("fork"),
  source_session_id: Type.String(),
  /** A history entry's `checkpoint_id` of the source. */
  checkpoint_id: Type.String({ minLength: 1, maxLength: 128 }),
  name: Type.Optional(Type.String({ maxLength: 256 })),
});

/** Body of `PUT /sessions/{id}` (with `If-None-Match: *`): a new session or a fork. */
export const CreateSessionBodySchema = named(
  "CreateSessionBody",
  Type.Union([NewSessionSchema, ForkSessionSchema]),
);
export type CreateSessionBody = Static<typeof CreateSessionBodySchema>;

/** The fields of `PUT /sessions/{id}` for a new session (a client sends them with `kind: "new"`). */
export type NewSessionBody = Omit<Static<typeof NewSessionSchema>, "kind">;

/** The fields of `PUT /sessions/{id}` for a fork (a client sends them with `kind: "fork"`). */
export type ForkSessionBody = Omit<Static<typeof ForkSessionSchema>, "kind">;

const forkFields = {
  kind: Type.Literal("fork"),
  source_session_id: Type.String(),
  /** Null for forks made before the daemon stored it. */
  checkpoint_id: NullableString,
  /** The hash of the source's log entry the fork branched after; null as checkpoint_id. */
  entry_hash: NullableString,
};

/** How a session came to be: created new, or forked at a checkpoint (a summary's `creation`). */
export const SessionCreationSchema = Type.Union([
  closedObject({ kind: Type.Literal("new") }),
  closedObject(forkFields),
]);
export type SessionCreation = Static<typeof SessionCreationSchema>;

const Submitted = Type.Union([CreateSessionBodySchema, Type.Null()], {
  description:
    "the body of the PUT that created the session, as accepted (nothing added); null for older sessions",
});

/**
 * A snapshot's `creation`: the summary's, plus `submitted`, the body of the `PUT` that created
 * the session exactly as the daemon accepted it (validated, nothing added: a field the client
 * left out stays out, the defaults the daemon chose are in the snapshot's other fields), so a
 * client can tell whether the session is the one it asked for. Null for sessions created before
 * the daemon stored it (schema version 6).
 */
export const SnapshotCreationSchema = Type.Union([
  closedObject({ kind: Type.Literal("new"), submitted: Submitted }),
  closedObject({ ...forkFields, submitted: Submitted }),
]);
export type SnapshotCreation = Static<typeof SnapshotCreationSchema>;
