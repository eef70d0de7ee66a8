/**
 * The input and session ids of a schedule's firing, derived here exactly as docs/http-api.md
 * documents it (not imported from the daemon), so the tests check the documented derivation.
 */
import { createHash } from "node:crypto";

/** The id of `purpose` (`input` or `session`) for the firing of `scheduleId` at `fireAtMs`. */
export function documentedFiringId(
  purpose: "input" | "session",
  scheduleId: string,
  fireAtMs: number,
): string {
  const digest = createHash("sha256").update(`skein-schedule:${purpose}:${scheduleId}:${fireAtMs}`).digest();
  const time = fireAtMs.toString(16).padStart(12, "0");
  const hex = (bytes: number[]) => bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
  const randA = hex([0x70 | (digest[0]! & 0x0f), digest[1]!]);
  const randB = hex([0x80 | (digest[2]! & 0x3f), ...digest.subarray(3, 10)]);
  return `${time.slice(0, 8)}-${time.slice(8)}-${randA}-${randB.slice(0, 4)}-${randB.slice(4)}`;
}
