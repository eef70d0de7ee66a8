/**
 * A workspace's agent catalog is made again only when its agent files or config.json's agents
 * changed (the same map otherwise, which the task tool's definition is kept by), and a skipped
 * file is reported on every turn that asks.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AgentCatalogs } from "../../../src/daemon/task/agent-catalog.js";

const agentText = (front: string) => `---\n${front}\n---\nYou help.\n`;

/** A workspace whose agent directory holds `name`.md with front matter `front`; its root and that directory. */
function workspaceWith(name: string, front: string): { root: string; agents: string } {
  const root = mkdtempSync(join(tmpdir(), "skein-catalog-"));
  const agents = join(root, ".skein", "agents");
  mkdirSync(agents, { recursive: true });
  writeFileSync(join(agents, `${name}.md`), agentText(front));
  return { root, agents };
}

describe("agent catalogs", () => {
  it("keep a workspace's catalog until a file or config.json's agents change", () => {
    const { root, agents } = workspaceWith("reviewer", "description: Reviews");
    const catalogs = new AgentCatalogs();
    const configured = { writer: { description: "Writes", prompt: "You write." } };
    const warn = () => undefined;
    const first = catalogs.of(root, configured, warn);
    expect([...first.keys()]).toEqual(["general", "writer", "reviewer"]);
    expect(catalogs.of(root, configured, warn)).toBe(first);

    const reconfigured = { editor: { description: "Edits", prompt: "You edit." } };
    expect([...catalogs.of(root, reconfigured, warn).keys()]).toEqual(["general", "editor", "reviewer"]);

    writeFileSync(join(agents, "tester.md"), agentText("description: Tests"));
    expect([...catalogs.of(root, reconfigured, warn).keys()]).toEqual([
      "general",
      "editor",
      "reviewer",
      "tester",
    ]);
  });

  it("report a file that may not loosen the mode on every call", () => {
    const { root } = workspaceWith("yolo", "description: Runs anything\nmode: auto-edit");
    const catalogs = new AgentCatalogs();
    const warnings: string[] = [];
    const warn = (file: string) => warnings.push(file);
    expect([...catalogs.of(root, undefined, warn).keys()]).toEqual(["general"]);
    catalogs.of(root, undefined, warn);
    expect(warnings).toEqual(["yolo.md", "yolo.md"]);
  });
});
