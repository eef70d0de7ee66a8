/**
 * Keys that arrive in pieces, put back together: a bracketed paste (one key per character
 * between `paste-start` and `paste-end`) and xterm's modifyOtherKeys Shift-Enter.
 *
 * Boundary rule: turns readline's keypresses into what the editor acts on; no buffer, no drawing.
 */
import { isPrintable, type Key } from "./keypress.js";

/** What one keypress amounts to once pieces are put together. */
export type DecodedKey =
  /** Part of a longer sequence: nothing to do yet. */
  | { kind: "pending" }
  /** Text to insert at the cursor as is (a whole paste, or a newline for Shift-Enter). */
  | { kind: "insert"; text: string }
  /** An ordinary key, for the editor's key bindings. */
  | { kind: "key"; text: string | undefined; key: Key };

/** Reads bracketed pastes and modifyOtherKeys sequences across keypresses. */
export class KeyDecoder {
  #pasting = false;
  /** What a bracketed paste has brought so far. */
  #pasted: string[] = [];
  /** Whether the last key of a paste was a carriage return (kept from one paste to the next). */
  #pastedReturn = false;
  /** Digits of an xterm modifyOtherKeys sequence (`ESC [27;2;13~`, Shift-Enter) being read. */
  #modified: string | null = null;

  /** What the keypress `text`/`key` amounts to. */
  decode(text: string | undefined, key: Key): DecodedKey {
    if (key.name === "paste-start") {
      this.#pasting = true;
      this.#pasted = [];
      return { kind: "pending" };
    }
    if (key.name === "paste-end") {
      this.#pasting = false;
      // Inserted at once: a large paste arrives one key at a time.
      const pasted = this.#pasted.join("");
      this.#pasted = [];
      return { kind: "insert", text: pasted };
    }
    if (this.#pasting) {
      this.#pastedKey(text, key);
      return { kind: "pending" };
    }
    return this.#modifiedKey(text, key) ?? { kind: "key", text, key };
  }

  /** The editor let go of the keyboard: keys that come next are not part of a paste. */
  stopPaste(): void {
    this.#pasting = false;
  }

  /** A key inside a bracketed paste: everything is text, newlines included. */
  #pastedKey(text: string | undefined, key: Key): void {
    const chunk = pastedChunk(text, key, this.#pastedReturn);
    this.#pastedReturn = key.name === "return";
    if (chunk !== null) this.#pasted.push(chunk);
  }

  /**
   * xterm's modifyOtherKeys reports Shift-Enter as `ESC [27;2;13~`, which readline splits into
   * `ESC [27;2;` and the characters `1`, `3`, `~`: collect them rather than insert them.
   * Null when the key is not part of such a sequence.
   */
  #modifiedKey(text: string | undefined, key: Key): DecodedKey | null {
    if (key.code !== undefined && /^\[27;\d+;$/.test(key.code)) {
      this.#modified = "";
      return { kind: "pending" };
    }
    if (this.#modified === null) return null;
    if (text !== undefined && /^\d$/.test(text)) {
      this.#modified += text;
      return { kind: "pending" };
    }
    const code = this.#modified;
    this.#modified = null;
    if (text === "~" && code === "13") return { kind: "insert", text: "\n" };
    return text === "~" ? { kind: "pending" } : null;
  }
}

/**
 * The text one key of a paste adds (null: none). `afterReturn`: the key before it was a carriage
 * return, so a line feed now ends the same line ("\r\n", text copied from Windows, is one break).
 */
export function pastedChunk(text: string | undefined, key: Key, afterReturn: boolean): string | null {
  if (key.name === "return") return "\n";
  if (key.name === "enter") return afterReturn ? null : "\n";
  if (key.name === "tab") return "\t";
  if (text !== undefined && isPrintable(text)) return text;
  return null;
}
