/** Answer schemas of sessions: summaries, snapshots, the listing and deletion (each exactly its src/api type). */
import { Type } from "typebox";
import type { InputReceipt, PendingInput } from "../../../api/inputs.js";
import type {
  SessionSnapshot,
  SessionStatus,
  SessionSummary,
  SessionUsage,
} from "../../../api/session-snapshot.js";
import type { DeleteAnswer, SessionList } from "../../../api/sessions.js";
import type { StreamCursor } from "../../../api/stream-cursor.js";
import { wireSchema } from "../../http/wire-schema.js";
import { SessionCreationSchema, SnapshotCreationSchema } from "./creation-schemas.js";
import { HistoryPageSchema } from "./history-schemas.js";
import { named } from "./named-schema.js";
import {
  NullableApprovalPolicySchema,
  PendingApprovalSchema,
  SessionContextSchema,
  SessionSettingsAnswerSchema,
} from "./session-feature-schemas.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const Time = Type.String({ format: "date-time" });

export const SessionStatusSchema = named(
  "SessionStatus",
  wireSchema<SessionStatus>()(
    Type.Object(
      {
        phase: Type.Union([Type.Literal("idle"), Type.Literal("running"), Type.Literal("waiting")]),
        run_id: NullableString,
        interrupt_requested: Type.Boolean(),
        blocking_reason: Type.Union([
          Type.Null(),
          Type.Object({ code: Type.String(), detail: Type.String() }, { additionalProperties: false }),
        ]),
      },
      { additionalProperties: false },
    ),
  ),
);

export const StreamCursorSchema = named(
  "StreamCursor",
  wireSchema<StreamCursor>()(
    Type.Object(
      { generation: Type.String(), sequence: Type.Integer({ minimum: 0 }) },
      { additionalProperties: false },
    ),
  ),
);

const UsageSchema = wireSchema<SessionUsage>()(
  Type.Object(
    {
      prompt_tokens: Type.Integer({ minimum: 0 }),
      completion_tokens: Type.Integer({ minimum: 0 }),
      cached_prompt_tokens: Type.Integer({ minimum: 0 }),
      total_tokens: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

const summaryFields = {
  id: Type.String(),
  name: NullableString,
  workspace: Type.String(),
  parent_id: NullableString,
  created_at: Time,
  activity_at: Time,
  provider_profile: NullableString,
  model: NullableString,
  status: SessionStatusSchema,
  preview: Type.Object(
    { text: Type.String(), transcript_count: Type.Integer({ minimum: 0 }), truncated: Type.Boolean() },
    { additionalProperties: false },
  ),
  input_order: Type.Integer({ minimum: 0 }),
  usage: UsageSchema,
  creation: SessionCreationSchema,
};

export const SessionSummarySchema = named(
  "SessionSummary",
  wireSchema<SessionSummary>()(
    Type.Object(
      { ...summaryFields, cursor: Type.Union([StreamCursorSchema, Type.Null()]) },
      { additionalProperties: false },
    ),
  ),
);

const PendingInputSchema = wireSchema<PendingInput>()(
  Type.Object(
    {
      id: Type.String(),
      kind: Type.String(),
      accepted_at: Time,
      acceptance_order: Type.Integer({ minimum: 0 }),
      delivery: Type.Literal("pending"),
    },
    { additionalProperties: false },
  ),
);

export const SessionSnapshotSchema = named(
  "SessionSnapshot",
  wireSchema<SessionSnapshot>()(
    Type.Object(
      {
        ...summaryFields,
        creation: SnapshotCreationSchema,
        cursor: StreamCursorSchema,
        pending_inputs: Type.Array(PendingInputSchema),
        pending_approvals: Type.Array(PendingApprovalSchema),
        approval_policy: NullableApprovalPolicySchema,
        history: HistoryPageSchema,
        settings: SessionSettingsAnswerSchema,
        context: Type.Union([SessionContextSchema, Type.Null()]),
      },
      { additionalProperties: false },
    ),
  ),
);

export const SessionListSchema = named(
  "SessionList",
  wireSchema<SessionList>()(
    Type.Object({ items: Type.Array(SessionSummarySchema) }, { additionalProperties: false }),
  ),
);

export const DeleteAnswerSchema = wireSchema<DeleteAnswer>()(
  Type.Object({ id: Type.String(), deleted: Type.Literal(true) }, { additionalProperties: false }),
);

export const InputReceiptSchema = named(
  "InputReceipt",
  wireSchema<InputReceipt>()(
    Type.Object(
      {
        id: Type.String(),
        session_id: Type.String(),
        kind: Type.String(),
        admission: Type.Literal("accepted"),
        accepted_at: Time,
        acceptance_order: Type.Integer({ minimum: 0 }),
        delivery: Type.Union([Type.Literal("pending"), Type.Literal("committed"), Type.Literal("cancelled")]),
        transcript_position: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        turn: Type.Union([
          Type.Null(),
          Type.Object(
            {
              id: Type.String(),
              state: Type.Union([
                Type.Literal("running"),
                Type.Literal("completed"),
                Type.Literal("interrupted"),
                Type.Literal("abandoned"),
                Type.Literal("failed"),
              ]),
              started_at: Time,
              ended_at: Type.Union([Time, Type.Null()]),
            },
            { additionalProperties: false },
          ),
        ]),
        client_id: NullableString,
      },
      { additionalProperties: false },
    ),
  ),
);
