/**
 * Schemas of the event streams: every event of a session's stream and of the session list's,
 * and the frame (one SSE `data:` line) that carries them, each exactly its src/api type.
 */
import { type TSchema, Type } from "typebox";
import type { CancelAnswer, InterruptAnswer } from "../../../api/inputs.js";
import type { ResetEvent, SessionEvent, StreamFrame } from "../../../api/session-events.js";
import type { SessionListEvent } from "../../../api/session-list-events.js";
import type { SessionSnapshot } from "../../../api/session-snapshot.js";
import type { SessionList } from "../../../api/sessions.js";
import { wireSchema } from "../../http/wire-schema.js";
import { HistoryEntrySchema } from "./history-schemas.js";
import { named } from "./named-schema.js";
import { approvalRecordFields, PendingApprovalSchema } from "./session-feature-schemas.js";
import {
  InputReceiptSchema,
  SessionListSchema,
  SessionSnapshotSchema,
  SessionStatusSchema,
  SessionSummarySchema,
} from "./session-schemas.js";

const NullableString = Type.Union([Type.String(), Type.Null()]);
const closed = { additionalProperties: false } as const;

function event<K extends string, D extends TSchema>(type: K, data: D, description: string) {
  return Type.Object(
    { type: Type.Literal(type), sequence: Type.Integer({ minimum: 0 }), data },
    { ...closed, description },
  );
}

const EndedTurnState = Type.Union([
  Type.Literal("completed"),
  Type.Literal("interrupted"),
  Type.Literal("abandoned"),
  Type.Literal("failed"),
]);

const CompactionTrigger = Type.Union([
  Type.Literal("auto"),
  Type.Literal("overflow"),
  Type.Literal("manual"),
]);

const compactionEventFields = {
  run_id: NullableString,
  trigger: CompactionTrigger,
  before_tokens: Type.Integer({ minimum: 0 }),
  after_tokens: Type.Integer({ minimum: 0 }),
  first_kept_position: Type.Integer({ minimum: 0 }),
};

const CompactionEventSchema = Type.Object(compactionEventFields, closed);

const Delta = Type.Object({ run_id: Type.String(), message_id: Type.String(), text: Type.String() }, closed);

export const SessionEventSchema = named(
  "SessionEvent",
  wireSchema<SessionEvent>()(
    Type.Union([
      event("status", SessionStatusSchema, "the session's status changed (as a snapshot's `status`)"),
      event(
        "input",
        Type.Object({ input: InputReceiptSchema }, closed),
        "an input was admitted or delivered",
      ),
      event("text", Delta, "merged text deltas of one model message (`message_id` `<run_id>:<n>`)"),
      event("thinking", Delta, "merged thinking deltas (`message_id` `<run_id>:<n>:thinking`)"),
      event("message", Type.Object({ entry: HistoryEntrySchema }, closed), "a history entry was committed"),
      event(
        "tool",
        Type.Object(
          {
            tool_call_id: Type.String(),
            name: Type.String(),
            arguments: Type.String(),
            result: NullableString,
            is_error: Type.Boolean(),
            truncated: Type.Optional(
              Type.Object(
                { arguments: Type.Optional(Type.Integer()), result: Type.Optional(Type.Integer()) },
                closed,
              ),
            ),
          },
          closed,
        ),
        "a tool call started (`result` null) or ended",
      ),
      event(
        "retry",
        Type.Object(
          {
            run_id: Type.String(),
            attempt: Type.Integer(),
            reason: Type.String(),
            delay_ms: Type.Integer(),
            adjusted: Type.Optional(Type.Array(Type.String())),
          },
          closed,
        ),
        "a model request is retried",
      ),
      event(
        "usage",
        Type.Object(
          {
            run_id: Type.String(),
            model: Type.String(),
            prompt_tokens: Type.Integer(),
            cached_prompt_tokens: Type.Integer(),
            completion_tokens: Type.Integer(),
            total_tokens: Type.Integer(),
          },
          closed,
        ),
        "tokens of one model request",
      ),
      event("committed", Type.Object({ high_water: Type.Integer() }, closed), "the log head moved"),
      event(
        "turn_completed",
        Type.Object(
          {
            run_id: Type.String(),
            state: EndedTurnState,
            input_ids: Type.Array(Type.String()),
            outcome: Type.Union([
              Type.Literal("finished"),
              Type.Literal("limit_reached"),
              Type.Literal("paused"),
              Type.Literal("yielded"),
              Type.Literal("error"),
            ]),
          },
          closed,
        ),
        "a turn ended",
      ),
      event("approval_requested", PendingApprovalSchema, "a committed tool call waits for an answer"),
      event(
        "approval_resolved",
        Type.Object({ ...approvalRecordFields, run_id: NullableString }, closed),
        "a waiting tool call was answered (logged before its tool may run)",
      ),
      event("compaction_started", CompactionEventSchema, "a compaction of the model's context began"),
      event(
        "compaction_completed",
        Type.Object({ ...compactionEventFields, position: Type.Integer({ minimum: 0 }) }, closed),
        "a compaction's entry is in the log at `position`",
      ),
      event(
        "compaction_failed",
        Type.Object({ run_id: NullableString, trigger: CompactionTrigger, message: Type.String() }, closed),
        "a compaction gave up; the session is exactly as before",
      ),
      event(
        "error",
        Type.Object({ run_id: NullableString, code: Type.String(), message: Type.String() }, closed),
        "a turn met an error (codes: docs/http-api.md, The stream)",
      ),
    ]),
  ),
);

export const SessionListEventSchema = named(
  "SessionListEvent",
  wireSchema<SessionListEvent>()(
    Type.Union([
      event("created", Type.Object({ session: SessionSummarySchema }, closed), "a session was created"),
      event("updated", Type.Object({ session: SessionSummarySchema }, closed), "a listed session changed"),
      event(
        "status",
        Type.Object({ id: Type.String(), parent_id: NullableString, status: SessionStatusSchema }, closed),
        "a session's status changed",
      ),
      event(
        "deleted",
        Type.Object({ id: Type.String(), parent_id: NullableString }, closed),
        "a session was deleted",
      ),
    ]),
  ),
);

const ResetEventSchema = named(
  "ResetEvent",
  wireSchema<ResetEvent>()(
    Type.Object(
      {
        type: Type.Literal("reset"),
        data: Type.Object(
          {
            reason: Type.Union([
              Type.Literal("initial"),
              Type.Literal("generation_changed"),
              Type.Literal("replay_unavailable"),
            ]),
          },
          closed,
        ),
      },
      { ...closed, description: "start over from the frame's snapshot" },
    ),
  ),
);

function frame<E extends TSchema, S extends TSchema>(events: E, snapshot: S) {
  return Type.Object(
    {
      generation: Type.String(),
      cursor: Type.Integer({ minimum: 0, description: "the sequence of the frame's last event" }),
      events: Type.Array(Type.Union([ResetEventSchema, events])),
      snapshot: Type.Optional(snapshot),
    },
    { ...closed, description: "the JSON of one SSE `data:` line; its SSE `id` is `<generation>.<cursor>`" },
  );
}

export const SessionStreamFrameSchema = named(
  "SessionStreamFrame",
  wireSchema<StreamFrame<SessionEvent, SessionSnapshot>>()(frame(SessionEventSchema, SessionSnapshotSchema)),
);

export const SessionListStreamFrameSchema = named(
  "SessionListStreamFrame",
  wireSchema<StreamFrame<SessionListEvent, SessionList>>()(frame(SessionListEventSchema, SessionListSchema)),
);

export const CancelAnswerSchema = wireSchema<CancelAnswer>()(
  Type.Object(
    {
      result: Type.Union([
        Type.Literal("cancelled"),
        Type.Literal("interrupt_requested"),
        Type.Literal("not_pending"),
      ]),
      input: InputReceiptSchema,
    },
    closed,
  ),
);

export const InterruptAnswerSchema = wireSchema<InterruptAnswer>()(
  Type.Object(
    {
      run_id: NullableString,
      state: Type.Union([Type.Literal("requested"), Type.Literal("already_ended")]),
      cancelled_input_ids: Type.Array(Type.String()),
    },
    closed,
  ),
);
