/**
 * UUIDv7 ids for new sessions and inputs (the daemon requires client-generated UUIDv7).
 *
 * Boundary rule: id generation only. Written here instead of importing a package so the CLI's
 * start-up stays small; within one process ids are strictly increasing (a counter in the
 * random bits breaks ties inside one millisecond).
 */
import { randomFillSync } from "node:crypto";

let lastMs = -1;
let counter = 0;

/** A new lowercase UUIDv7 string. */
export function uuidV7(now: number = Date.now()): string {
  const bytes = new Uint8Array(16);
  randomFillSync(bytes);
  let ms = Math.max(now, lastMs);
  if (ms === lastMs) {
    counter += 1;
    if (counter > 0xfff) {
      ms += 1;
      counter = 0;
    }
  } else {
    counter = bytes[6]! & 0x07;
  }
  lastMs = ms;
  // 48-bit big-endian millisecond timestamp.
  let rest = ms;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = rest % 256;
    rest = Math.floor(rest / 256);
  }
  // Version 7 and a 12-bit counter in rand_a; variant 10 in the top bits of byte 8.
  bytes[6] = 0x70 | ((counter >> 8) & 0x0f);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
