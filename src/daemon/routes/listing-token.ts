/**
 * The `next` token of a keyset listing (`GET /sessions`, `GET /schedules`): the listing key of
 * the last row of a page, `<time in ms>.<id in base64url>`. The page after it is a range of the
 * listing's index that starts past that key, so reading page N costs what reading the first does.
 *
 * Boundary rule: a token is only ever read back into a key; one this code did not make is a 400
 * `invalid_request` naming the listing, never a guess.
 */
import { problem } from "../http/problem.js";

/** Where a listing's page starts: past the row with this time (ms) and id. */
export interface ListingKey {
  at: number;
  id: string;
}

const tokenShape = /^(\d{1,16})\.([A-Za-z0-9_-]{1,200})$/;

/**
 * The token of the page after `rows` (a page read one row longer than `limit`, to learn without
 * counting whether another follows), or null when none does.
 */
export function nextListingToken<Row>(
  rows: readonly Row[],
  limit: number,
  keyOf: (row: Row) => ListingKey,
): string | null {
  const last = rows[limit - 1];
  if (rows.length <= limit || last === undefined) return null;
  const { at, id } = keyOf(last);
  return `${at}.${Buffer.from(id, "utf8").toString("base64url")}`;
}

/** The key `token` carries; `listing` (`GET /sessions`) names where tokens come from in the 400. */
export function listingKeyOf(token: string, listing: string): ListingKey {
  const match = tokenShape.exec(token);
  const id = match === null ? "" : Buffer.from(match[2]!, "base64url").toString("utf8");
  // Decoding is lenient: a token that does not encode back to itself was not made here.
  if (match === null || Buffer.from(id, "utf8").toString("base64url") !== match[2])
    throw problem(
      "invalid_request",
      `next must be a token from an earlier ${listing} page, got ${JSON.stringify(token.slice(0, 64))}`,
    );
  return { at: Number(match[1]), id };
}
