/**
 * Schedules as the HTTP API shows them: the bodies of `POST` and `PATCH /schedules` and the
 * schedule the routes answer.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/schedules.ts).
 */
export type {
  CreateScheduleBody,
  PatchScheduleBody,
  Schedule,
  ScheduleList,
  ScheduleListQuery,
} from "./schemas/schedules.js";
