import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LogCorruptError } from "../../src/log/errors.js";
import type { HeadRecord } from "../../src/log/head-record.js";
import {
  decodeHeadSlot,
  encodeHeadSlot,
  HEAD_SLOT_BYTES,
  HEAD_SLOT_COUNT,
  newestHeadSlot,
  nextHeadSlot,
  type SlottedHead,
} from "../../src/log/head-slots.js";

const SESSION = "01900000-0000-7000-8000-000000000000";
const FILE_BYTES = HEAD_SLOT_COUNT * HEAD_SLOT_BYTES;

const hex = (length: number) =>
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: length, maxLength: length });

/** Heads as the file store records them: unsigned, or signed with an Ed25519 signature (88 base64 chars). */
const headRecord: fc.Arbitrary<HeadRecord> = fc.record({
  position: fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  hash: hex(64),
  signed: fc.option(
    fc.record({
      signature: fc.base64String({ minLength: 88, maxLength: 88 }),
      key_id: hex(16),
    }),
    { nil: null },
  ),
});

/** A head file after writing `records` in turn, the way the file store does. */
function writeAll(records: readonly HeadRecord[]): { file: Buffer; newest: SlottedHead | null } {
  const file = Buffer.alloc(0);
  let bytes = file;
  let newest: SlottedHead | null = null;
  for (const record of records) {
    const next = nextHeadSlot(newest);
    const grown = Buffer.alloc(Math.max(bytes.length, (next.slot + 1) * HEAD_SLOT_BYTES));
    bytes.copy(grown);
    encodeHeadSlot(next.seq, record).copy(grown, next.slot * HEAD_SLOT_BYTES);
    bytes = grown;
    newest = { ...next, record };
  }
  return { file: bytes, newest };
}

describe("head slots", () => {
  it("round-trips any recorded head through a slot of exactly one sector", () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), headRecord, (seq, record) => {
        const bytes = encodeHeadSlot(seq, record);
        expect(bytes.length).toBe(HEAD_SLOT_BYTES);
        expect(decodeHeadSlot(SESSION, 1, bytes)).toEqual({ slot: 1, seq, record });
      }),
    );
  });

  it("reads a slot damaged anywhere as torn or as the same head, never as another head", () => {
    fc.assert(
      fc.property(
        headRecord,
        fc.array(fc.tuple(fc.nat({ max: HEAD_SLOT_BYTES - 1 }), fc.integer({ min: 1, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.nat({ max: HEAD_SLOT_BYTES }),
        (record, changes, keep) => {
          const bytes = encodeHeadSlot(7, record);
          for (const [at, delta] of changes) bytes[at] = (bytes[at]! + delta) % 256;
          const decoded = decodeHeadSlot(SESSION, 0, bytes.subarray(0, keep));
          if (decoded !== null) expect(decoded).toEqual({ slot: 0, seq: 7, record });
        },
      ),
    );
  });

  it("never writes into the newest valid slot", () => {
    fc.assert(
      fc.property(fc.array(headRecord, { minLength: 1, maxLength: 6 }), (records) => {
        const { file, newest } = writeAll(records);
        expect(newestHeadSlot(SESSION, file)).toEqual(newest);
        expect(nextHeadSlot(newest).slot).not.toBe(newest!.slot);
      }),
    );
  });

  it("after a write torn anywhere, reads the head written last or the one before it, never another", () => {
    fc.assert(
      fc.property(
        fc.array(headRecord, { minLength: 1, maxLength: 5 }),
        headRecord,
        fc.array(fc.boolean(), { minLength: HEAD_SLOT_BYTES / 64, maxLength: HEAD_SLOT_BYTES / 64 }),
        fc.nat({ max: FILE_BYTES }),
        (written, torn, landed, fileLength) => {
          const { file, newest } = writeAll(written);
          const target = nextHeadSlot(newest);
          const bytes = Buffer.alloc(FILE_BYTES);
          file.copy(bytes);
          // The crash kept an arbitrary subset of the new slot's 64-byte pieces; the rest is old.
          const update = encodeHeadSlot(target.seq, torn);
          landed.forEach((kept, piece) => {
            if (kept)
              update.copy(bytes, target.slot * HEAD_SLOT_BYTES + piece * 64, piece * 64, (piece + 1) * 64);
          });
          const read = newestHeadSlot(SESSION, bytes.subarray(0, Math.max(file.length, fileLength)));
          if (read?.seq === target.seq) expect(read).toEqual({ ...target, record: torn });
          else expect(read).toEqual(newest);
        },
      ),
    );
  });

  it("finds no head in an empty, zeroed or short file", () => {
    expect(newestHeadSlot(SESSION, Buffer.alloc(0))).toBeNull();
    expect(newestHeadSlot(SESSION, Buffer.alloc(FILE_BYTES))).toBeNull();
    const record: HeadRecord = { position: 3, hash: "a".repeat(64), signed: null };
    expect(newestHeadSlot(SESSION, encodeHeadSlot(0, record).subarray(0, 60))).toBeNull();
  });

  it("reports a slot whose checksum holds but whose content is no head as corruption", () => {
    const body = JSON.stringify({ seq: 1, position: -1, hash: "a".repeat(64), signed: null });
    const line = `${createHash("sha256").update(body).digest("hex")} ${body}\n`;
    const bytes = Buffer.alloc(HEAD_SLOT_BYTES);
    bytes.write(line);
    expect(() => decodeHeadSlot(SESSION, 0, bytes)).toThrow(LogCorruptError);
    const noSeq = JSON.stringify({ position: 1, hash: "a".repeat(64), signed: null });
    bytes.fill(0).write(`${createHash("sha256").update(noSeq).digest("hex")} ${noSeq}\n`);
    expect(() => decodeHeadSlot(SESSION, 0, bytes)).toThrow(LogCorruptError);
  });

  it("refuses a head too long for a slot rather than writing a cut one", () => {
    const record: HeadRecord = {
      position: 1,
      hash: "a".repeat(64),
      signed: { signature: "s".repeat(HEAD_SLOT_BYTES), key_id: "k" },
    };
    expect(() => encodeHeadSlot(1, record)).toThrow(RangeError);
  });
});
