import { describe, expect, it } from "vitest";
import { bufferOf } from "../../../src/cli/line-editor/edit-buffer.js";
import {
  type Search,
  type SearchStep,
  searchKey,
  searchLine,
  startSearch,
} from "../../../src/cli/line-editor/history-search.js";
import type { Key } from "../../../src/cli/line-editor/keypress.js";

const entries = ["git status", "npm test", "git commit", "ls"];
const typed = bufferOf("typed");

/** Feed keys to a search started on `typed`, each step from the one before. */
function keys(...presses: [string | undefined, Key][]): SearchStep {
  let step: SearchStep = { search: startSearch(typed), buffer: typed, handled: true };
  for (const [text, key] of presses) step = searchKey(step.search as Search, step.buffer, text, key, entries);
  return step;
}

const char = (text: string): [string, Key] => [text, { sequence: text }];
const ctrlR: [string, Key] = ["\x12", { name: "r", ctrl: true }];

describe("searching the history with Ctrl-R", () => {
  it("shows the newest prompt containing what is typed", () => {
    const step = keys(char("g"), char("i"));
    expect(step.buffer).toEqual(bufferOf("git commit"));
    expect(step.search).toMatchObject({ query: "gi", index: 2 });
  });

  it("goes to older matches with Ctrl-R, and stays on the oldest", () => {
    expect(keys(char("g"), ctrlR).buffer).toEqual(bufferOf("git status"));
    const past = keys(char("g"), ctrlR, ctrlR);
    expect(past.buffer).toEqual(bufferOf("git status"));
    expect(past.search?.index).toBe(0);
  });

  it("says there is no match, and finds one again after Backspace", () => {
    const none = keys(char("g"), char("z"));
    expect(none.search?.index).toBeNull();
    expect(searchLine(none.search!)).toBe("history search: gz (no match)  (Ctrl-R older, Esc cancels)");
    expect(keys(char("g"), char("z"), [undefined, { name: "backspace" }]).buffer).toEqual(
      bufferOf("git commit"),
    );
  });

  it("puts back what was typed on Esc or Ctrl-G", () => {
    expect(keys(char("l"), [undefined, { name: "escape" }])).toEqual({
      search: null,
      buffer: typed,
      handled: true,
    });
    expect(keys(char("l"), ["\x07", { name: "g", ctrl: true }]).buffer).toEqual(typed);
  });

  it("takes the match into the prompt on Enter", () => {
    expect(keys(char("n"), ["\r", { name: "return" }])).toEqual({
      search: null,
      buffer: bufferOf("npm test"),
      handled: true,
    });
  });

  it("ends on any other key, leaving the key to be handled as usual", () => {
    expect(keys(char("l"), [undefined, { name: "left" }])).toEqual({
      search: null,
      buffer: bufferOf("ls"),
      handled: false,
    });
  });

  it("shows an empty query without a complaint", () => {
    expect(searchLine(startSearch(typed))).toBe("history search:   (Ctrl-R older, Esc cancels)");
  });
});
