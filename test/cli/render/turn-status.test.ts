import { describe, expect, it } from "vitest";
import { TurnStatus } from "../../../src/cli/render/turn-status.js";

describe("the chat's status line during a turn", () => {
  it("says what the turn does, for how long, and that the model is awaited after 3 s of silence", () => {
    let now = 1_000;
    const shown: (string | null)[] = [];
    const status = new TurnStatus(
      { setStatus: (line) => shown.push(line) },
      () => "1.2k tokens",
      () => now,
    );
    expect(status.line()).toBeNull();
    status.begin();
    expect(status.line()).toMatch(/^. thinking… · 0\.0 s · 1\.2k tokens · Ctrl-C interrupts$/);
    now += 2_000;
    status.stop();
    expect(status.line()).toMatch(/^. responding… · 2\.0 s · /);
    now += 4_500;
    expect(status.line()).toMatch(/^. responding… · waiting for the model… 4 s · 6\.5 s · /);
    status.start("running run_command…");
    now += 5_000;
    // A tool taking its time is not a silent model.
    expect(status.line()).toMatch(/^. running run_command… · 11\.5 s · /);
    status.end();
    expect(status.line()).toBeNull();
    expect(shown.at(-1)).toBeNull();
  });
});
