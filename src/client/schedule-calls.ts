/**
 * The schedule routes as client calls (`DaemonClient.schedules`): `POST`/`GET /schedules`,
 * `GET`/`PATCH`/`DELETE /schedules/{id}`.
 */
import { allSchedulePages } from "../api/schedule-pages.js";
import type { CreateScheduleBody, Schedule, ScheduleList } from "../api/schedules.js";
import type { DeleteAnswer } from "../api/sessions.js";
import type { CallOptions } from "./client-options.js";

/** One JSON request to the daemon (an error answer throws `DaemonApiError`). */
type JsonCall = <T>(method: string, path: string, options?: CallOptions) => Promise<T>;

export interface ScheduleCalls {
  /** `POST /schedules`. */
  create(body: CreateScheduleBody): Promise<Schedule>;
  /** `GET /schedules`: every schedule, oldest first, page after page. */
  list(): Promise<Schedule[]>;
  /** `GET /schedules/{id}`. */
  get(id: string): Promise<Schedule>;
  /** `PATCH /schedules/{id}`: pause (true) or resume (false). */
  setPaused(id: string, paused: boolean): Promise<Schedule>;
  /** `DELETE /schedules/{id}`. */
  remove(id: string): Promise<DeleteAnswer>;
}

/** The schedule calls made through `call`. */
export function scheduleCalls(call: JsonCall): ScheduleCalls {
  const path = (id: string) => `/schedules/${encodeURIComponent(id)}`;
  return {
    create: (body) => call("POST", "/schedules", { body }),
    list: () => allSchedulePages((listing) => call<ScheduleList>("GET", listing)),
    get: (id) => call("GET", path(id)),
    setPaused: (id, paused) => call("PATCH", path(id), { body: { paused } }),
    remove: (id) => call("DELETE", path(id)),
  };
}
