/**
 * How many sessions one `GET /sessions` page holds.
 *
 * Boundary rule: plain values, kept apart from the wire schemas so the CLI and the client
 * library can read them without loading the schemas at run time.
 */

/** Sessions per `GET /sessions` page when the query names no `limit`. */
export const defaultSessionPageSize = 100;
/** The largest `limit` a `GET /sessions` page takes. */
export const maxSessionPageSize = 1000;
