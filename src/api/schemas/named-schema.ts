/**
 * Names for the schemas the OpenAPI document lists under `components.schemas`: a schema given
 * a name here is written once there and referred to by `$ref` wherever it appears.
 *
 * Boundary rule: a registry of names only; the schema object itself is left as it is, so
 * validation keeps using it unchanged.
 */
import type { TSchema } from "typebox";

const names = new WeakMap<object, string>();

/** `schema`, remembered under `name` for the document. */
export function named<S extends TSchema>(name: string, schema: S): S {
  names.set(schema, name);
  return schema;
}

/** The name a schema was given, if any. */
export function schemaName(schema: object): string | undefined {
  return names.get(schema);
}
