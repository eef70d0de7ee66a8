/**
 * `skein show` with entries the daemon sends truncated: the start and a note by default, the
 * whole content with `--full` (fetched through each part's ref), in text and in JSON.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

describe("skein show with large entries", () => {
  const shared = useCliDaemon();
  let id: string;
  const prompt = `${"a long prompt line\n".repeat(30_000)}the very end`;
  const answer = `${"é".repeat(200_000)} answered`;

  beforeAll(async () => {
    shared.provider.script = () => text([answer]);
    id = await shared.daemon.createSession();
    await shared.daemon.prompt(id, prompt);
    await shared.daemon.idle(id);
  });

  it("prints the start of a large entry and a note saying how to see all of it", async () => {
    const result = await shared.cli.run(["show", id, "--no-pager"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("a long prompt line");
    expect(result.stdout).toContain(`[… ${Buffer.byteLength(prompt)} bytes, skein show --full]`);
    expect(result.stdout).toContain(`[… ${Buffer.byteLength(answer)} bytes, skein show --full]`);
    expect(result.stdout).not.toContain("the very end");
    expect(result.stdout.length).toBeLessThan(100_000);
  });

  it("prints large entries whole with --full, as text and as JSON", async () => {
    const result = await shared.cli.run(["show", id, "--no-pager", "--full"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("the very end");
    expect(result.stdout).toContain(" answered");
    expect(result.stdout).not.toContain("skein show --full]");
    const json = await shared.cli.run(["show", id, "--json", "--full"]);
    const { entries } = JSON.parse(json.stdout) as {
      entries: Array<{ kind: string; content: Array<{ text?: string; truncated?: boolean }> }>;
    };
    expect(entries.find((entry) => entry.kind === "user")?.content).toEqual([{ kind: "text", text: prompt }]);
    expect(entries.find((entry) => entry.kind === "assistant")?.content).toEqual([
      { kind: "text", text: answer },
    ]);
  });
});
