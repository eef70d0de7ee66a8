/**
 * Schemas of a session's creation: the body of `PUT /sessions/{id}` (validated with them) and
 * the `creation` a summary and a snapshot show (each exactly its src/api type). A snapshot's
 * `submitted` is the body schema itself, so what it echoes has the shape the route accepts.
 */
import { Type } from "typebox";
import type {
  CreateSessionBody,
  ForkSessionBody,
  NewSessionBody,
  SessionCreation,
  SnapshotCreation,
} from "../../../api/session-creation.js";
import { wireSchema } from "../../http/wire-schema.js";
import { ApprovalPolicySchema } from "../approval-policy-schema.js";
import { RequestConfigSchema } from "../session-settings-schema.js";
import { named } from "./named-schema.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);

const NewSessionSchema = wireSchema<{ kind: "new" } & NewSessionBody>()(
  Type.Object(
    {
      kind: Type.Literal("new"),
      workspace: Type.String({ minLength: 1, maxLength: 4096 }),
      name: Type.Optional(Type.String({ maxLength: 256 })),
      provider_profile: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      system_prompt: Type.Optional(Type.String({ maxLength: 65_536 })),
      mcp_servers: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 64 })),
      request_config: Type.Optional(RequestConfigSchema),
      approval_policy: Type.Optional(ApprovalPolicySchema),
    },
    { additionalProperties: false },
  ),
);

const ForkSessionSchema = wireSchema<{ kind: "fork" } & ForkSessionBody>()(
  Type.Object(
    {
      kind: Type.Literal("fork"),
      source_session_id: Type.String(),
      checkpoint_id: Type.String({ minLength: 1, maxLength: 128 }),
      name: Type.Optional(Type.String({ maxLength: 256 })),
    },
    { additionalProperties: false },
  ),
);

/** The body of `PUT /sessions/{id}`: a new session or a fork. */
export const CreateSessionBodySchema = named(
  "CreateSessionBody",
  wireSchema<CreateSessionBody>()(Type.Union([NewSessionSchema, ForkSessionSchema])),
);

const forkFields = {
  kind: Type.Literal("fork"),
  source_session_id: Type.String(),
  checkpoint_id: NullableString,
  entry_hash: NullableString,
};

/** A summary's `creation`. */
export const SessionCreationSchema = wireSchema<SessionCreation>()(
  Type.Union([
    Type.Object({ kind: Type.Literal("new") }, { additionalProperties: false }),
    Type.Object(forkFields, { additionalProperties: false }),
  ]),
);

const Submitted = Type.Union([CreateSessionBodySchema, Type.Null()], {
  description:
    "the body of the PUT that created the session, as accepted (nothing added); null for older sessions",
});

/** A snapshot's `creation`: the summary's plus the creation request (`submitted`). */
export const SnapshotCreationSchema = wireSchema<SnapshotCreation>()(
  Type.Union([
    Type.Object({ kind: Type.Literal("new"), submitted: Submitted }, { additionalProperties: false }),
    Type.Object({ ...forkFields, submitted: Submitted }, { additionalProperties: false }),
  ]),
);
