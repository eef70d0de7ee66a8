/**
 * The few wire schemas that carry a type of the model as it is (an approval policy, a matched
 * rule, a request config): `matchesModel<T>()` makes the build fail when the schema's static
 * type and the model's type `T` (src/model) are not the same, so the wire and the log cannot
 * drift apart. Every other wire type is the static type of its schema.
 *
 * Boundary rule: types only at compile time; at run time the schema passes through unchanged.
 */
import type { Static, TSchema } from "typebox";

/**
 * A type with every intersection merged, member by member of a union, at every depth and
 * without `readonly`, so only the shape is compared.
 */
type Flat<T> = T extends readonly (infer U)[]
  ? Flat<U>[]
  : T extends object
    ? { -readonly [K in keyof T]: Flat<T[K]> }
    : T;

/** `true` when A and B are the same type (optional and required properties told apart), else `false`. */
export type SameShape<A, B> =
  (<X>() => X extends Flat<A> ? 1 : 2) extends <X>() => X extends Flat<B> ? 1 : 2 ? true : false;

/** `matchesModel<T>()(schema)`: the schema itself; does not compile unless `Static<schema>` is `T`. */
export function matchesModel<T>() {
  return <S extends TSchema>(schema: S & (SameShape<Static<S>, T> extends true ? unknown : never)): S =>
    schema;
}
