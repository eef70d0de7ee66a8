/**
 * UUIDv7 ids derived from a text rather than drawn at random, for writes that must be idempotent
 * across nodes and crashes (a schedule's firing, a `task` call's child session): whoever derives
 * the id of the same thing gets the same id, and the database admits it once.
 *
 * The layout (docs/http-api.md repeats it for clients): digest = SHA-256 of the UTF-8 text; the
 * 48-bit timestamp is `timeMs`; the 12 `rand_a` bits are the low 4 bits of digest[0] then
 * digest[1]; the 62 `rand_b` bits are the low 6 bits of digest[2] then digest[3..9].
 */
import { createHash } from "node:crypto";

/** The UUIDv7 with timestamp `timeMs` whose random bits come from the SHA-256 of `text`. */
export function derivedUuidV7(text: string, timeMs: number): string {
  if (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs >= 2 ** 48) {
    throw new RangeError(`time ${timeMs} is not a 48-bit millisecond time`);
  }
  const digest = createHash("sha256").update(text).digest();
  const bytes = new Uint8Array(16);
  let rest = timeMs;
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

/** The 48-bit millisecond timestamp of a UUIDv7, or null when `id` is no UUIDv7. */
export function uuidV7Time(id: string): number | null {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(id)) return null;
  return Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
