/**
 * A session's event stream on the wire (`GET /sessions/{id}` with `Accept: text/event-stream`),
 * as TypeBox schemas and the types derived from them: every event type and its `data`, the
 * reset a frame may start with, and the frame (one SSE `data:` line) that carries them.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The
 * daemon publishes them, a client decodes them
 * (src/client/stream-batch.ts).
 */
import { type Static, type TSchema, Type } from "typebox";
import { approvalRecordFields, PendingApprovalSchema } from "./approvals.js";
import { HistoryEntrySchema } from "./history.js";
import { InputReceiptSchema } from "./inputs.js";
import { named } from "./named-schema.js";
import { closedObject, literalUnion, NullableString } from "./parts.js";
import { SessionSnapshotSchema, SessionStatusSchema } from "./session-snapshot.js";

/** One event of a stream: its type, its sequence in the stream and its `data`. */
export function event<K extends string, D extends TSchema>(type: K, data: D, description: string) {
  return closedObject(
    { type: Type.Literal(type), sequence: Type.Integer({ minimum: 0 }), data },
    { description },
  );
}

const EndedTurnState = literalUnion("completed", "interrupted", "abandoned", "failed");

const CompactionTriggerSchema = literalUnion("auto", "overflow", "manual");

/** Why a compaction ran: the fill threshold, a provider's "context too long", or a client's request. */
export type CompactionTriggerName = Static<typeof CompactionTriggerSchema>;

const compactionEventFields = {
  /** The turn it ran in, or null for a manual compaction of an idle session. */
  run_id: NullableString,
  trigger: CompactionTriggerSchema,
  before_tokens: Type.Integer({ minimum: 0 }),
  after_tokens: Type.Integer({ minimum: 0 }),
  first_kept_position: Type.Integer({ minimum: 0 }),
};

/** What the compaction events carry (token counts are the daemon's estimates of the prompt). */
const CompactionEventSchema = closedObject(compactionEventFields);
export type CompactionEventData = Static<typeof CompactionEventSchema>;

const Delta = closedObject({ run_id: Type.String(), message_id: Type.String(), text: Type.String() });

/** One published event of a session. */
const SessionEventSchema = named(
  "SessionEvent",
  Type.Union([
    event("status", SessionStatusSchema, "the session's status changed (as a snapshot's `status`)"),
    event("input", closedObject({ input: InputReceiptSchema }), "an input was admitted or delivered"),
    event("text", Delta, "merged text deltas of one model message (`message_id` `<run_id>:<n>`)"),
    event("thinking", Delta, "merged thinking deltas (`message_id` `<run_id>:<n>:thinking`)"),
    event("message", closedObject({ entry: HistoryEntrySchema }), "a history entry was committed"),
    event(
      "tool",
      closedObject({
        tool_call_id: Type.String(),
        name: Type.String(),
        arguments: Type.String(),
        result: NullableString,
        is_error: Type.Boolean(),
        /** Present when the arguments or the result were cut to their start: the full size in UTF-8 bytes. */
        truncated: Type.Optional(
          closedObject({ arguments: Type.Optional(Type.Integer()), result: Type.Optional(Type.Integer()) }),
        ),
      }),
      "a tool call started (`result` null) or ended",
    ),
    event(
      "retry",
      closedObject({
        run_id: Type.String(),
        attempt: Type.Integer(),
        reason: Type.String(),
        delay_ms: Type.Integer(),
        /** What a resend after a refusal leaves out (refused optional fields, or the history item the refusal named). */
        adjusted: Type.Optional(Type.Array(Type.String())),
      }),
      "a model request is retried",
    ),
    event(
      "usage",
      closedObject({
        run_id: NullableString,
        model: Type.String(),
        prompt_tokens: Type.Integer(),
        cached_prompt_tokens: Type.Integer(),
        completion_tokens: Type.Integer(),
        total_tokens: Type.Integer(),
      }),
      "tokens of one model request, or of a compaction's summary requests (`run_id`: the turn that made them; null for a compaction a client asked for)",
    ),
    event("committed", closedObject({ high_water: Type.Integer() }), "the log head moved"),
    event(
      "turn_completed",
      closedObject({
        run_id: Type.String(),
        state: EndedTurnState,
        input_ids: Type.Array(Type.String()),
        /**
         * Why a turn that completed stopped: the model answered (`finished`), or the turn
         * reached its cap of tool rounds (`limit_reached`), or a budget that applies to the
         * session was used up before its next model request (`budget_exhausted`); `error` for
         * the other states.
         */
        outcome: literalUnion("finished", "limit_reached", "budget_exhausted", "paused", "yielded", "error"),
      }),
      "a turn ended",
    ),
    event(
      "approval_requested",
      closedObject({
        ...PendingApprovalSchema.properties,
        /** Present on a parent's stream: the `task` child whose call waits (answer it at that session's route). */
        session_id: Type.Optional(Type.String()),
      }),
      "a committed tool call waits for an answer (`session_id`: a `task` child's call, relayed to its parent)",
    ),
    event(
      "task_started",
      closedObject({ call_id: Type.String(), child_session_id: Type.String(), agent: Type.String() }),
      "a `task` call started (or, after a restart, resumed) its child session",
    ),
    event(
      "task_completed",
      closedObject({
        call_id: Type.String(),
        child_session_id: Type.String(),
        /** How the child's turn for the task ended; `cancelled`: its input never ran. */
        state: literalUnion("completed", "interrupted", "failed", "cancelled"),
        usage: closedObject({
          prompt_tokens: Type.Integer({ minimum: 0 }),
          completion_tokens: Type.Integer({ minimum: 0 }),
          cached_prompt_tokens: Type.Integer({ minimum: 0 }),
          total_tokens: Type.Integer({ minimum: 0 }),
        }),
      }),
      "a `task` call's child ended its work; `usage`: the child's totals so far",
    ),
    event(
      "approval_resolved",
      closedObject({
        ...approvalRecordFields,
        run_id: NullableString,
        /** Present on a parent's stream: the `task` child whose call was answered. */
        session_id: Type.Optional(Type.String()),
      }),
      "a waiting tool call was answered (logged before its tool may run; `session_id`: a `task` child's call, relayed to its parent)",
    ),
    event("compaction_started", CompactionEventSchema, "a compaction of the model's context began"),
    event(
      "compaction_completed",
      closedObject({ ...compactionEventFields, position: Type.Integer({ minimum: 0 }) }),
      "a compaction's entry is in the log at `position`",
    ),
    event(
      "compaction_failed",
      closedObject({ run_id: NullableString, trigger: CompactionTriggerSchema, message: Type.String() }),
      "a compaction gave up; the session is exactly as before",
    ),
    event(
      "error",
      closedObject({ run_id: NullableString, code: Type.String(), message: Type.String() }),
      "a turn met an error (codes: docs/http-api.md, The stream)",
    ),
  ]),
);
export type SessionEvent = Static<typeof SessionEventSchema>;
export type SessionEventType = SessionEvent["type"];

/** The `data` of each event type a session publishes. */
export type SessionEventData = { [K in SessionEventType]: Extract<SessionEvent, { type: K }>["data"] };

const ResetReasonSchema = literalUnion("initial", "generation_changed", "replay_unavailable");

/** Why a frame starts over from a snapshot instead of replaying. */
export type ResetReason = Static<typeof ResetReasonSchema>;

/** The event a frame starts with when it carries a snapshot; it has no sequence. */
const ResetEventSchema = named(
  "ResetEvent",
  closedObject(
    { type: Type.Literal("reset"), data: closedObject({ reason: ResetReasonSchema }) },
    { description: "start over from the frame's snapshot" },
  ),
);
export type ResetEvent = Static<typeof ResetEventSchema>;

/**
 * The JSON of one `data:` line of an event stream (its SSE `id` is `<generation>.<cursor>`):
 * events, and the snapshot when the first event is a reset.
 */
export function frame<E extends TSchema, S extends TSchema>(events: E, snapshot: S) {
  return closedObject(
    {
      generation: Type.String(),
      cursor: Type.Integer({ minimum: 0, description: "the sequence of the frame's last event" }),
      events: Type.Array(Type.Union([ResetEventSchema, events])),
      snapshot: Type.Optional(snapshot),
    },
    { description: "the JSON of one SSE `data:` line; its SSE `id` is `<generation>.<cursor>`" },
  );
}

/** One frame of a session's stream. */
export const SessionStreamFrameSchema = named(
  "SessionStreamFrame",
  frame(SessionEventSchema, SessionSnapshotSchema),
);
export type SessionStreamFrame = Static<typeof SessionStreamFrameSchema>;
