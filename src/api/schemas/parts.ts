/**
 * The small schemas the wire schemas are built from: a string or null, an RFC 3339 time, and
 * the option that closes an object to fields it does not name.
 *
 * Boundary rule: building blocks only; each is used by several wire schemas.
 */
import { Type } from "typebox";

/** A string or null. */
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An RFC 3339 date and time. */
export const Time = Type.String({ format: "date-time" });

/** An object with no fields but the ones it names. */
export const closed = { additionalProperties: false } as const;
