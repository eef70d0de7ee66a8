/**
 * The ids a schedule's firing uses: its input's id and, for a schedule that starts a new session
 * each time, that session's id. Both are derived from the schedule's id and the firing's time
 * alone, so every node, and the same node after a crash, derives the same ids for the same
 * firing, and the database admits the firing once (inputs and sessions are idempotent by id).
 *
 * The derivation (docs/http-api.md repeats it for clients): digest = SHA-256 of the UTF-8 text
 * `skein-schedule:<purpose>:<schedule id>:<firing time in ms>` (purpose `input` or `session`);
 * a UUIDv7 whose 48-bit timestamp is the firing time, whose 12 `rand_a` bits are the low 4 bits
 * of digest[0] then digest[1], and whose 62 `rand_b` bits are the low 6 bits of digest[2] then
 * digest[3..9].
 */
import { createHash } from "node:crypto";

/** What a derived id names. */
export type FiringPurpose = "input" | "session";

/** The id of `purpose` for the firing of schedule `scheduleId` at `fireAtMs`. */
export function firingId(purpose: FiringPurpose, scheduleId: string, fireAtMs: number): string {
  if (!Number.isSafeInteger(fireAtMs) || fireAtMs < 0 || fireAtMs >= 2 ** 48) {
    throw new RangeError(`firing time ${fireAtMs} is not a 48-bit millisecond time`);
  }
  const digest = createHash("sha256").update(`skein-schedule:${purpose}:${scheduleId}:${fireAtMs}`).digest();
  const bytes = new Uint8Array(16);
  let rest = fireAtMs;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  bytes[6] = 0x70 | (digest[0]! & 0x0f);
  bytes[7] = digest[1]!;
  bytes[8] = 0x80 | (digest[2]! & 0x3f);
  for (let i = 9; i < 16; i++) bytes[i] = digest[i - 6]!;
  const hex = Buffer.from(bytes).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
