/**
 * How many schedules one `GET /schedules` page holds.
 *
 * Boundary rule: plain values, kept apart from the wire schemas so the CLI, the client library
 * and the web UI can read them without loading the schemas at run time.
 */

/** Schedules per `GET /schedules` page when the query names no `limit`. */
export const defaultSchedulePageSize = 100;
/** The largest `limit` a `GET /schedules` page takes. */
export const maxSchedulePageSize = 1000;
