/**
 * A workspace's agent files are read once and kept while they stay the same; a file added,
 * edited, renamed or removed, or the directory appearing or going, is seen by the next read.
 */
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentFilesCache } from "../../src/home/agent-files-cache.js";

const agentText = (description: string) => `---\ndescription: ${description}\n---\nYou help.\n`;

/** A workspace and its agent directory (not made yet). */
function workspace(): { root: string; agents: string } {
  const root = mkdtempSync(join(tmpdir(), "skein-agent-cache-"));
  return { root, agents: join(root, ".skein", "agents") };
}

describe("the agent files cache", () => {
  it("gives the same object while nothing changed", () => {
    const { root, agents } = workspace();
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, "reviewer.md"), agentText("Reviews"));
    const cache = new AgentFilesCache();
    const first = cache.read(root);
    expect(first.agents.reviewer?.description).toBe("Reviews");
    expect(cache.read(root)).toBe(first);
  });

  it("sees the directory appear and go", () => {
    const { root, agents } = workspace();
    const cache = new AgentFilesCache();
    expect(Object.keys(cache.read(root).agents)).toEqual([]);
    mkdirSync(agents, { recursive: true });
    writeFileSync(join(agents, "reviewer.md"), agentText("Reviews"));
    expect(Object.keys(cache.read(root).agents)).toEqual(["reviewer"]);
    rmSync(join(root, ".skein"), { recursive: true });
    expect(Object.keys(cache.read(root).agents)).toEqual([]);
  });

  it("sees a file edited in place, added, renamed and removed", () => {
    const { root, agents } = workspace();
    mkdirSync(agents, { recursive: true });
    const reviewer = join(agents, "reviewer.md");
    writeFileSync(reviewer, agentText("Reviews"));
    const cache = new AgentFilesCache();
    expect(cache.read(root).agents.reviewer?.description).toBe("Reviews");

    writeFileSync(reviewer, agentText("Reviews every change"));
    expect(cache.read(root).agents.reviewer?.description).toBe("Reviews every change");

    writeFileSync(join(agents, "tester.md"), agentText("Tests"));
    expect(Object.keys(cache.read(root).agents).sort()).toEqual(["reviewer", "tester"]);

    renameSync(join(agents, "tester.md"), join(agents, "checker.md"));
    expect(Object.keys(cache.read(root).agents).sort()).toEqual(["checker", "reviewer"]);

    rmSync(reviewer);
    expect(Object.keys(cache.read(root).agents)).toEqual(["checker"]);
  });

  it("sees a file that defined no agent fixed", () => {
    const { root, agents } = workspace();
    mkdirSync(agents, { recursive: true });
    const broken = join(agents, "broken.md");
    writeFileSync(broken, "no front matter");
    const cache = new AgentFilesCache();
    expect(cache.read(root).errors.map((error) => error.file)).toEqual([broken]);
    writeFileSync(broken, agentText("Fixed"));
    const fixed = cache.read(root);
    expect(fixed.errors).toEqual([]);
    expect(fixed.agents.broken?.description).toBe("Fixed");
  });
});
