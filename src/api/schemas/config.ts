/**
 * `GET /config` and the changes of a cluster's shared config (`PUT`/`DELETE /config/…`) on the
 * wire, as TypeBox schemas and the types derived from them.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. What an
 * entry may hold is config.json's format (checked by the daemon, not by these schemas).
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, namedObject } from "./parts.js";

/** A profile in force on the daemon, never with its API key. */
const ConfiguredProfileSchema = closedObject({
  /** Whether it comes from the cluster's shared config (true) or the node's config.json. */
  shared: Type.Boolean(),
  /** The profile as config.json holds it; an `apiKey` reads `"(stored)"`. */
  profile: Type.Record(Type.String(), Type.Unknown()),
});

/** The 200 answer of `GET /config` and of every change: the config in force on the daemon. */
export const ConfigViewSchema = namedObject("ConfigView", {
  /**
   * Where `skein config` writes: `file` (the home's config.json: a daemon on SQLite) or
   * `database` (the cluster's shared config, laid over each node's config.json).
   */
  source: literalUnion("file", "database"),
  /** The shared config's version in force on this node (0: none written; always 0 for `file`). */
  version: Type.Integer({ minimum: 0 }),
  /** The active profile, or null. */
  active: NullableString,
  providers: Type.Record(Type.String(), ConfiguredProfileSchema),
  /** The entries of the shared config in force here, by section and name. */
  shared_entries: Type.Array(closedObject({ section: Type.String(), name: Type.String() })),
  /** Why config.json or a newer shared config is not in force here (the last good one is), or null. */
  error: NullableString,
});
export type ConfigView = Static<typeof ConfigViewSchema>;

/** Body of `PUT /config/settings/{name}`. */
export const ConfigSettingBodySchema = closedObject({
  /** The setting's value, as config.json's top level holds it. */
  value: Type.Unknown(),
});
export type ConfigSettingBody = Static<typeof ConfigSettingBodySchema>;

/** Body of `PUT /config/profiles/{name}` and `PUT /config/mcp-servers/{name}`: the entry as config.json holds it. */
export const ConfigEntryBodySchema = Type.Record(Type.String(), Type.Unknown());
