import { TextOffsetError } from "../errors.js";
/**
 * Slices of a text addressed by UTF-8 byte offsets and bounded by the bytes their JSON string
 * encoding takes, so a client can read a text of any size in answers of bounded size and
 * concatenate the slices back to exactly the original.
 *
 * Boundary rule: pure functions over JS strings. A slice never splits a character (a surrogate
 * pair stays whole); a lone surrogate counts as 3 UTF-8 bytes, as `Buffer.byteLength` counts
 * it, and travels as a `\uXXXX` escape, so even an ill-formed string comes back unchanged.
 */

/** A slice of a text. */
export interface TextSlice {
  readonly text: string;
  /** UTF-8 byte offset just after the slice. */
  readonly end: number;
}

/**
 * The whole characters of `text` from UTF-8 byte `offset` whose JSON string encoding fits in
 * `maxJsonBytes` (quotes not counted), at least one when any is left (`atLeastOne`). Throws
 * TextOffsetError for an offset inside a character or past the end.
 */
export function sliceText(text: string, offset: number, maxJsonBytes: number, atLeastOne = true): TextSlice {
  let index = 0;
  let bytes = 0;
  while (bytes < offset && index < text.length) {
    const units = unitsAt(text, index);
    bytes += utf8Bytes(text, index, units);
    index += units;
  }
  if (bytes !== offset) throw new TextOffsetError(offset, bytes < offset ? bytes : Buffer.byteLength(text));
  const start = index;
  let json = 0;
  while (index < text.length) {
    const units = unitsAt(text, index);
    const size = jsonBytes(text, index, units);
    if (json + size > maxJsonBytes && (index > start || !atLeastOne)) break;
    json += size;
    bytes += utf8Bytes(text, index, units);
    index += units;
  }
  return { text: text.slice(start, index), end: bytes };
}

/** The bytes `text` takes as a JSON string, quotes included (what `JSON.stringify` writes). */
export function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), "utf8");
}

function isHigh(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}

function isLow(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** 2 for a surrogate pair starting at `index`, else 1. */
function unitsAt(text: string, index: number): number {
  return isHigh(text.charCodeAt(index)) && index + 1 < text.length && isLow(text.charCodeAt(index + 1))
    ? 2
    : 1;
}

function utf8Bytes(text: string, index: number, units: number): number {
  if (units === 2) return 4;
  const unit = text.charCodeAt(index);
  return unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3;
}

/** What JSON.stringify writes for the character at `index` (well-formed: lone surrogates escaped). */
function jsonBytes(text: string, index: number, units: number): number {
  if (units === 2) return 4;
  const unit = text.charCodeAt(index);
  if (unit === 0x22 || unit === 0x5c) return 2;
  if (unit < 0x20)
    return unit === 0x08 || unit === 0x09 || unit === 0x0a || unit === 0x0c || unit === 0x0d ? 2 : 6;
  if (unit < 0x80) return 1;
  if (unit < 0x800) return 2;
  if (unit >= 0xd800 && unit <= 0xdfff) return 6;
  return 3;
}
