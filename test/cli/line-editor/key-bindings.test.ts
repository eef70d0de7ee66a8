import { describe, expect, it } from "vitest";
import { bufferOf, type EditBuffer } from "../../../src/cli/line-editor/edit-buffer.js";
import { commandFor } from "../../../src/cli/line-editor/key-bindings.js";
import type { Key } from "../../../src/cli/line-editor/keypress.js";

/** The buffer after the key's edit, or the command's kind when the key does not simply edit. */
function pressed(buffer: EditBuffer, text: string | undefined, key: Key): EditBuffer | string | null {
  const command = commandFor(text, key);
  if (command === null) return null;
  return command.kind === "edit" ? command.edit(buffer) : command.kind;
}

const twoWords = { text: "one two", cursor: 5 };

describe("what each key does at the prompt", () => {
  it("inserts printable text at the cursor, and nothing for control characters or Alt", () => {
    expect(pressed(twoWords, "x", { name: "x" })).toEqual({ text: "one txwo", cursor: 6 });
    expect(pressed(twoWords, "日", {})).toEqual({ text: "one t日wo", cursor: 6 });
    expect(pressed(twoWords, "\x1bx", { name: "x", meta: true })).toBeNull();
    expect(pressed(twoWords, "\x00", {})).toBeNull();
  });

  it("sends on Enter, and makes a newline of Alt-Enter, Ctrl-J and CSI-u Shift-Enter", () => {
    const newline = { text: "one t\nwo", cursor: 6 };
    expect(pressed(twoWords, "\r", { name: "return" })).toBe("enter");
    expect(pressed(twoWords, "\r", { name: "return", meta: true })).toEqual(newline);
    expect(pressed(twoWords, "\n", { name: "enter" })).toEqual(newline);
    expect(pressed(twoWords, undefined, { code: "[13;2u" })).toEqual(newline);
  });

  it("moves by characters with the arrows and by words with Alt or Ctrl", () => {
    expect(pressed(twoWords, undefined, { name: "left" })).toEqual({ text: "one two", cursor: 4 });
    expect(pressed(twoWords, undefined, { name: "left", meta: true })).toEqual({
      text: "one two",
      cursor: 4,
    });
    expect(pressed(twoWords, undefined, { name: "right", ctrl: true })).toEqual({
      text: "one two",
      cursor: 7,
    });
    expect(pressed(twoWords, "\x1bb", { name: "b", meta: true })).toEqual({ text: "one two", cursor: 4 });
    expect(pressed(twoWords, "\x1bf", { name: "f", meta: true })).toEqual({ text: "one two", cursor: 7 });
    expect(pressed(twoWords, "\x02", { name: "b", ctrl: true })).toEqual({ text: "one two", cursor: 4 });
    expect(pressed(twoWords, "\x06", { name: "f", ctrl: true })).toEqual({ text: "one two", cursor: 6 });
  });

  it("goes to the ends of the line with Home, End, Ctrl-A and Ctrl-E", () => {
    expect(pressed(twoWords, undefined, { name: "home" })).toEqual({ text: "one two", cursor: 0 });
    expect(pressed(twoWords, "\x05", { name: "e", ctrl: true })).toEqual({ text: "one two", cursor: 7 });
  });

  it("deletes a character, a word, or to either end of the line", () => {
    expect(pressed(twoWords, undefined, { name: "backspace" })).toEqual({ text: "one wo", cursor: 4 });
    expect(pressed(twoWords, undefined, { name: "backspace", meta: true })).toEqual({
      text: "one wo",
      cursor: 4,
    });
    expect(pressed(bufferOf("one two"), "\x17", { name: "w", ctrl: true })).toEqual({
      text: "one ",
      cursor: 4,
    });
    expect(pressed(twoWords, undefined, { name: "delete" })).toEqual({ text: "one to", cursor: 5 });
    expect(pressed(twoWords, "\x08", { name: "h", ctrl: true })).toEqual({ text: "one wo", cursor: 4 });
    expect(pressed(twoWords, "\x15", { name: "u", ctrl: true })).toEqual({ text: "wo", cursor: 0 });
    expect(pressed(twoWords, "\x0b", { name: "k", ctrl: true })).toEqual({ text: "one t", cursor: 5 });
  });

  it("names the keys whose effect depends on more than the text", () => {
    expect(commandFor("\x03", { name: "c", ctrl: true })).toEqual({ kind: "interrupt" });
    expect(commandFor("\x04", { name: "d", ctrl: true })).toEqual({ kind: "eof" });
    expect(commandFor("\x0c", { name: "l", ctrl: true })).toEqual({ kind: "clear-screen" });
    expect(commandFor("\x12", { name: "r", ctrl: true })).toEqual({ kind: "search" });
    expect(commandFor(undefined, { name: "up" })).toEqual({ kind: "line", direction: -1 });
    expect(commandFor("\x0e", { name: "n", ctrl: true })).toEqual({ kind: "line", direction: 1 });
    expect(commandFor("\t", { name: "tab" })).toEqual({ kind: "complete" });
    expect(commandFor("\x1b[Z", { name: "tab", shift: true })).toEqual({ kind: "cycle-mode" });
    expect(commandFor("\x1b", { name: "escape" })).toEqual({ kind: "redraw" });
  });

  it("ignores control keys it has no binding for", () => {
    expect(commandFor("\x1a", { name: "z", ctrl: true })).toBeNull();
    expect(commandFor(undefined, { name: "f5" })).toBeNull();
  });
});
