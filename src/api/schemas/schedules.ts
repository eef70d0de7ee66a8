/**
 * Schedules on the wire: the body of `POST /schedules`, of `PATCH /schedules/{id}`, the
 * schedule every schedule route answers with, and the listing's page (`GET /schedules`).
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. Which of
 * `cron`/`at` and `session_id`/`new_session` a body names is checked by the route (one of each).
 */
import { type Static, Type } from "typebox";
import { maxSchedulePageSize } from "../schedule-page-size.js";
import { BudgetBodySchema } from "./budget.js";
import { InputReceiptSchema } from "./inputs.js";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

/** What a firing into a new session creates it with. */
const NewSessionSpecSchema = closedObject({
  workspace: Type.String({ minLength: 1 }),
  profile: Type.Optional(Type.String({ minLength: 1 })),
});

const MissedSchema = literalUnion("skip", "run_once");

/** Body of `POST /schedules`. */
export const CreateScheduleBodySchema = closedObject({
  id: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$" })),
  cron: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  at: Type.Optional(Time),
  timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  session_id: Type.Optional(Type.String()),
  new_session: Type.Optional(NewSessionSpecSchema),
  prompt: Type.String({ minLength: 1, maxLength: 1024 * 1024 }),
  missed: MissedSchema,
  /** What the turns the schedule's firings start may use together (config.json's budget shape). */
  budget: Type.Optional(BudgetBodySchema),
});
export type CreateScheduleBody = Static<typeof CreateScheduleBodySchema>;

/** Body of `PATCH /schedules/{id}`. */
export const PatchScheduleBodySchema = closedObject({ paused: Type.Boolean() });
export type PatchScheduleBody = Static<typeof PatchScheduleBodySchema>;

/** A schedule as every schedule route answers it. */
export const ScheduleSchema = namedObject("Schedule", {
  id: Type.String(),
  cron: NullableString,
  at: Type.Union([Time, Type.Null()]),
  timezone: NullableString,
  session_id: NullableString,
  new_session: Type.Union([closedObject({ workspace: Type.String(), profile: NullableString }), Type.Null()]),
  prompt: Type.String(),
  missed: MissedSchema,
  paused: Type.Boolean(),
  /** The next firing's time; null once a one-shot schedule has fired (or was skipped). */
  next_fire_at: Type.Union([Time, Type.Null()]),
  last_fired_at: Type.Union([Time, Type.Null()]),
  /** The input the last firing admitted (see the derivation in docs/http-api.md). */
  last_input_id: NullableString,
  /** The session the last firing went to. */
  last_session_id: NullableString,
  /**
   * The turn that delivered the last firing's input, as its receipt shows it (`state`:
   * running, completed, interrupted, abandoned or failed); null before the first firing and
   * while that input waits.
   */
  last_turn: InputReceiptSchema.properties.turn,
  created_at: Time,
  /** The schedule's budget (null: none), its period filled in. */
  budget: Type.Union([BudgetBodySchema, Type.Null()]),
});
export type Schedule = Static<typeof ScheduleSchema>;

/** The query of `GET /schedules`: which page. */
export const ScheduleListQuerySchema = closedObject({
  /** Schedules per page, 1..1000 (default 100). */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxSchedulePageSize })),
  /** The `next` token of the page before. */
  next: Type.Optional(Type.String({ maxLength: 256 })),
});
export type ScheduleListQuery = Static<typeof ScheduleListQuerySchema>;

/** `GET /schedules`: a page of schedules, oldest first. */
export const ScheduleListSchema = namedObject("ScheduleList", {
  schedules: Type.Array(ScheduleSchema),
  /** The token of the next page, or null after the last one (a daemon from before pages sends none). */
  next: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type ScheduleList = Static<typeof ScheduleListSchema>;
