/**
 * `POST /gc` on the wire, as TypeBox schemas and the types derived from them: apply the
 * retention policy of config.json now (or only say what it would do), and what it did.
 *
 * Boundary rule: the schema is the definition; each type is `Static` of it. The daemon builds
 * the report.
 */
import { type Static, Type } from "typebox";
import { closedObject, namedObject } from "./parts.js";

/** The request: `dry_run` says what would go without removing anything. */
export const GcBodySchema = namedObject("GcBody", { dry_run: Type.Optional(Type.Boolean()) });
export type GcBody = Static<typeof GcBodySchema>;

const Count = Type.Integer({ minimum: 0 });

/** What one run of retention did (or, dry, would do). Bytes are the entries' canonical JSON. */
export const GcReportSchema = namedObject("GcReport", {
  dry_run: Type.Boolean(),
  /** The policy applied (config.json's `retention`, defaults filled in); null: none configured, nothing done. */
  policy: Type.Union([
    Type.Null(),
    closedObject({
      delete_idle_days: Type.Union([Type.Number(), Type.Null()]),
      keep_entries: Type.Union([Count, Type.Null()]),
      above_bytes: Count,
      interval_minutes: Type.Number(),
    }),
  ]),
  /** Sessions deleted whole (idle too long). */
  deleted: Type.Array(closedObject({ session_id: Type.String(), entries: Count, bytes: Count })),
  /** Sessions whose entries before `up_to` were removed (a `pruned` entry records it). */
  pruned: Type.Array(closedObject({ session_id: Type.String(), up_to: Count, entries: Count, bytes: Count })),
  /** Sessions the policy names but that were left alone, and why (loaded, waiting, owned by another node, …). */
  skipped: Type.Array(closedObject({ session_id: Type.String(), reason: Type.String() })),
  bytes_freed: Count,
  duration_ms: Count,
});
export type GcReport = Static<typeof GcReportSchema>;
