/**
 * Client-generated ids (sessions, inputs): UUIDv7 strings whose timestamp must be recent, so a
 * replayed old request cannot recreate a deleted resource and a clock far ahead is caught.
 */
import { problem } from "../http/problem.js";

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const maxAgeMs = 7 * 24 * 60 * 60 * 1000;
const maxSkewMs = 5 * 60 * 1000;

/** Check a new resource's id; throws a problem (400 invalid, 410 too old, 400 in the future). */
export function checkNewId(id: string, what: string, now: number): void {
  checkIdShape(id, what);
  const ms = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  if (ms < now - maxAgeMs) {
    throw problem(
      "identity_expired",
      `${what} ${id} was generated more than 7 days ago; generate a new UUIDv7`,
    );
  }
  if (ms > now + maxSkewMs) {
    throw problem(
      "identity_future",
      `${what} ${id} lies more than 5 minutes in the future; check the client's clock`,
    );
  }
}

/** Check an id names a possible resource (lowercase UUIDv7); 404 otherwise would hide typos, so 400. */
export function checkIdShape(id: string, what: string): void {
  if (!uuidV7.test(id))
    throw problem(
      "invalid_request",
      `${what} must be a lowercase UUIDv7, got ${JSON.stringify(id.slice(0, 64))}`,
    );
}
