/**
 * The `retention` section of config.json: `{"deleteIdleDays": 90, "keepEntries": 2000,
 * "aboveBytes": 10000000, "intervalMinutes": 60}`. Without the section nothing is ever removed.
 * `deleteIdleDays`: delete a session idle (no input, no turn) for that many days; `keepEntries`
 * (with `aboveBytes`, default 0): of a session whose log takes more than `aboveBytes`, keep only
 * the last `keepEntries` entries (and never cut after its latest compaction); `intervalMinutes`
 * (default 60): how often the daemon applies it in the background (`skein gc` applies it now).
 *
 * Boundary rule: the section's format only; what the daemon does with it is daemon/actor/session-retention.ts's.
 */

/** The `retention` section as written (the daemon applies the defaults, so a rewrite keeps it as it was). */
export interface RetentionConfig {
  deleteIdleDays?: number;
  keepEntries?: number;
  aboveBytes?: number;
  intervalMinutes?: number;
}

const knownKeys = ["deleteIdleDays", "keepEntries", "aboveBytes", "intervalMinutes"];

/** Validates the `retention` value; `fail` throws with the reason. */
export function parseRetentionConfig(value: unknown, fail: (reason: string) => never): RetentionConfig {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    fail(`"retention" must be an object`);
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).filter((key) => !knownKeys.includes(key));
  if (unknown.length > 0)
    fail(`"retention" has unknown key "${unknown[0]}" (known: ${knownKeys.join(", ")})`);
  const deleteIdleDays = positive(record.deleteIdleDays, "deleteIdleDays", false, fail);
  const keepEntries = positive(record.keepEntries, "keepEntries", true, fail);
  if (deleteIdleDays === null && keepEntries === null) {
    fail(`"retention" must set "deleteIdleDays", "keepEntries" or both`);
  }
  const { aboveBytes } = record;
  if (
    aboveBytes !== undefined &&
    (typeof aboveBytes !== "number" || !Number.isSafeInteger(aboveBytes) || aboveBytes < 0)
  ) {
    fail(`"retention.aboveBytes" must be a whole number of bytes, 0 or more`);
  }
  const intervalMinutes = positive(record.intervalMinutes, "intervalMinutes", false, fail);
  return {
    ...(deleteIdleDays === null ? {} : { deleteIdleDays }),
    ...(keepEntries === null ? {} : { keepEntries }),
    ...(aboveBytes === undefined ? {} : { aboveBytes: aboveBytes as number }),
    ...(intervalMinutes === null ? {} : { intervalMinutes }),
  };
}

function positive(
  value: unknown,
  key: string,
  whole: boolean,
  fail: (reason: string) => never,
): number | null {
  if (value === undefined) return null;
  const ok =
    typeof value === "number" &&
    Number.isFinite(value) &&
    value > 0 &&
    (!whole || Number.isSafeInteger(value));
  if (!ok) fail(`"retention.${key}" must be a ${whole ? "whole number" : "number"} above 0`);
  return value as number;
}
