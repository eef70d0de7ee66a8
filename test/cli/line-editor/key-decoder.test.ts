import { describe, expect, it } from "vitest";
import { type DecodedKey, KeyDecoder, pastedChunk } from "../../../src/cli/line-editor/key-decoder.js";
import type { Key } from "../../../src/cli/line-editor/keypress.js";

type Press = [string | undefined, Key];

const char = (text: string): Press => [text, { sequence: text }];
const named = (name: string, text?: string): Press => [text, { name }];

function feed(decoder: KeyDecoder, presses: readonly Press[]): DecodedKey[] {
  return presses.map(([text, key]) => decoder.decode(text, key));
}

describe("putting keys that arrive in pieces together", () => {
  it("passes an ordinary key through as it came", () => {
    const key = { name: "a", sequence: "a" };
    expect(new KeyDecoder().decode("a", key)).toEqual({ kind: "key", text: "a", key });
  });

  it("inserts a bracketed paste whole when it ends, newlines and tabs included", () => {
    const decoded = feed(new KeyDecoder(), [
      named("paste-start"),
      char("a"),
      named("return", "\r"),
      char("b"),
      named("tab", "\t"),
      char("c"),
      named("paste-end"),
    ]);
    expect(decoded.slice(0, -1).every((step) => step.kind === "pending")).toBe(true);
    expect(decoded.at(-1)).toEqual({ kind: "insert", text: "a\nb\tc" });
  });

  it("reads a Windows line break in a paste as one newline, and a lone line feed as one too", () => {
    const decoded = feed(new KeyDecoder(), [
      named("paste-start"),
      char("a"),
      named("return", "\r"),
      named("enter", "\n"),
      char("b"),
      named("enter", "\n"),
      char("c"),
      named("paste-end"),
    ]);
    expect(decoded.at(-1)).toEqual({ kind: "insert", text: "a\nb\nc" });
  });

  it("drops control characters inside a paste", () => {
    expect(pastedChunk("\x1b", { name: "escape" }, false)).toBeNull();
    expect(pastedChunk("x", { name: "x" }, true)).toBe("x");
  });

  it("takes keys as ordinary again once the editor let go of the keyboard mid-paste", () => {
    const decoder = new KeyDecoder();
    feed(decoder, [named("paste-start"), char("a")]);
    decoder.stopPaste();
    expect(decoder.decode("b", { sequence: "b" }).kind).toBe("key");
  });

  it("reads xterm's modifyOtherKeys Shift-Enter as a newline rather than typing its digits", () => {
    const decoded = feed(new KeyDecoder(), [
      [undefined, { code: "[27;2;" }],
      char("1"),
      char("3"),
      char("~"),
    ]);
    expect(decoded).toEqual([
      { kind: "pending" },
      { kind: "pending" },
      { kind: "pending" },
      { kind: "insert", text: "\n" },
    ]);
  });

  it("swallows other modifyOtherKeys sequences, and hands on a key that breaks one off", () => {
    const decoder = new KeyDecoder();
    expect(feed(decoder, [[undefined, { code: "[27;5;" }], char("9"), char("~")]).at(-1)).toEqual({
      kind: "pending",
    });
    const broken = feed(decoder, [[undefined, { code: "[27;2;" }], char("1"), char("q")]);
    expect(broken.at(-1)).toEqual({ kind: "key", text: "q", key: { sequence: "q" } });
  });
});
