/**
 * `skein compact ID` end to end: it compacts a session with turns to spare and reports the
 * token counts; `skein show` then shows the compaction, the context's size and the warning for
 * a model whose window is not known; a session with nothing to compact is an error.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

describe("skein compact", () => {
  const shared = useCliDaemon();

  beforeAll(() => {
    shared.provider.script = () => text(`A long enough answer. ${"words ".repeat(40)}`);
  });

  it("compacts a session and shows the compaction and the context in `skein show`", async () => {
    const id = await shared.daemon.createSession();
    for (let n = 0; n < 4; n++) await shared.daemon.turn(id, `question number ${n} ${"padding ".repeat(30)}`);
    const result = await shared.cli.run(["compact", id.slice(0, 23)]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/context compacted from about \d+ to \d+ tokens \(\d+% of 32768\)/);
    const show = await shared.cli.run(["show", id]);
    expect(show.stdout).toMatch(/context compacted: [\d,]+ → [\d,]+ tokens \(manual\)/);
    expect(show.stdout).toMatch(/context (about )?\d+ of 32768 tokens \(\d+%, compacts at 80%\)/);
    expect(show.stdout).toContain('the context window of model "fake-model" is not known');
  });

  it("fails with the daemon's reason when there is nothing to compact", async () => {
    const id = await shared.daemon.createSession();
    await shared.daemon.turn(id, "only one question");
    const result = await shared.cli.run(["compact", id]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("nothing to compact");
  });
});
