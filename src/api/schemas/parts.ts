/**
 * The small schemas the wire schemas are built from: a string or null, an RFC 3339 time, one of
 * a few strings, and closed objects (no fields but the ones they name), plain or listed by name
 * in the document.
 *
 * Boundary rule: building blocks only; each is used by several wire schemas.
 */
import {
  type TLiteral,
  type TObject,
  type TObjectOptions,
  type TProperties,
  type TUnion,
  Type,
} from "typebox";
import { named } from "./named-schema.js";

/** A string or null. */
export const NullableString = Type.Union([Type.String(), Type.Null()]);

/** An RFC 3339 date and time. */
export const Time = Type.String({ format: "date-time" });

/** A literal schema for each of the strings `V`, in order. */
type Literals<V extends string[]> = { [K in keyof V]: TLiteral<V[K]> };

/** One of the strings `values`, each a literal of the union. */
export function literalUnion<const V extends string[]>(...values: V): TUnion<Literals<V>> {
  return Type.Union(values.map((value) => Type.Literal(value))) as TUnion<Literals<V>>;
}

/** An object with no fields but the ones it names. */
const closed = { additionalProperties: false } as const;

/** An object schema with no fields but `properties` (and any further `options`, such as a description). */
export function closedObject<P extends TProperties>(properties: P, options?: TObjectOptions): TObject<P> {
  return Type.Object(properties, { ...closed, ...options });
}

/** A closed object schema, written once under `name` in the OpenAPI document. */
export function namedObject<P extends TProperties>(name: string, properties: P): TObject<P> {
  return named(name, closedObject(properties));
}
