import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { historyPath, PromptHistory } from "../../../src/cli/line-editor/prompt-history.js";

describe("the prompt history file", () => {
  it("keeps multi-line prompts between loads, in a 0600 file per workspace", () => {
    const home = mkdtempSync(join(tmpdir(), "skein-history-"));
    const path = historyPath(home, "/work/project");
    expect(historyPath(home, "/work/other")).not.toBe(path);
    const history = PromptHistory.load(path);
    history.add("one\ntwo");
    history.add("three");
    history.add("three");
    history.add("   ");
    expect(PromptHistory.load(path).entries).toEqual(["one\ntwo", "three"]);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("keeps only the newest prompts past its limit, and skips a torn line", () => {
    const home = mkdtempSync(join(tmpdir(), "skein-history-"));
    const path = historyPath(home, "/w");
    const history = PromptHistory.load(path, 3);
    for (const prompt of ["a", "b", "c", "d"]) history.add(prompt);
    expect(PromptHistory.load(path, 3).entries).toEqual(["b", "c", "d"]);
    writeFileSync(path, `${readFileSync(path, "utf8")}"unterminated`);
    expect(PromptHistory.load(path, 3).entries).toEqual(["b", "c", "d"]);
  });

  it("reads a missing file as an empty history", () => {
    expect(PromptHistory.load(join(tmpdir(), "skein-no-such-dir", "h.jsonl")).entries).toEqual([]);
  });
});
