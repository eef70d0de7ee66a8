/**
 * The answer of `PUT /sessions/{id}` (201), as a TypeBox schema and its type: the new session's
 * snapshot, plus the receipt of its first input when the creation carried one, and how its
 * run_command runs.
 *
 * Boundary rule: the schema is the definition; the type is `Static` of it.
 */
import { type Static, Type } from "typebox";
import { InputReceiptSchema } from "./inputs.js";
import { namedObject } from "./parts.js";
import { ShellInfoSchema } from "./server.js";
import { SessionSnapshotSchema } from "./session-snapshot.js";

/**
 * A created session's snapshot; with a first input, `input` is its receipt (its turn already
 * started when the daemon started it in the creation's commit), and the snapshot's `cursor` is
 * where a stream attach picks up everything after it. `shell` is `GET /server`'s: how the
 * session's run_command runs (a client warning about it needs no other request).
 */
export const CreatedSessionSchema = namedObject("CreatedSession", {
  ...SessionSnapshotSchema.properties,
  input: Type.Optional(InputReceiptSchema),
  /** Absent from older daemons. */
  shell: Type.Optional(ShellInfoSchema),
});
export type CreatedSession = Static<typeof CreatedSessionSchema>;
