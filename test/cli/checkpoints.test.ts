/**
 * Per-turn workspace checkpoints: `skein diff` shows what a turn changed, `skein undo` puts the
 * workspace back as it was before it, and the workspace's own git repository is never touched.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";
import { eventually } from "./support/cli-harness.js";

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  });
}

describe("turn checkpoints: skein diff and skein undo", () => {
  const shared = useCliDaemon();

  it("shows a turn's edits as a diff and undoes them, leaving the project's own .git alone", async () => {
    const workspace = shared.cli.workspace;
    writeFileSync(join(workspace, "keep.txt"), "original\n");
    writeFileSync(join(workspace, ".gitignore"), "build/\n");
    git(workspace, "init", "-q");
    git(workspace, "add", "-A");
    git(workspace, "commit", "-qm", "project history");
    const projectHead = git(workspace, "rev-parse", "HEAD");
    const projectStatus = git(workspace, "status", "--porcelain");

    shared.provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "keep.txt", content: "changed by the agent\n" } },
        { name: "write_file", args: { path: "new/file.txt", content: "made by the agent\n" } },
      ]),
      text("Done."),
    );
    const ran = await shared.cli.run(["run", "--json", "change things"]);
    expect(ran.code, ran.stderr).toBe(0);
    const sessionId = (JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as { session_id: string })
      .session_id;

    const diff = await shared.cli.run(["diff", sessionId]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain("-original\n+changed by the agent");
    expect(diff.stdout).toContain("+++ b/new/file.txt");
    expect(diff.stdout).not.toContain(".git/");

    const undone = await shared.cli.run(["undo", sessionId]);
    expect(undone.code, undone.stderr).toBe(0);
    expect(undone.stdout).toMatch(/restored .* to before turn [0-9a-f-]{36}: 2 files changed back/);
    expect(readFileSync(join(workspace, "keep.txt"), "utf8")).toBe("original\n");
    expect(existsSync(join(workspace, "new/file.txt"))).toBe(false);
    // The project's repository is exactly as it was.
    expect(git(workspace, "rev-parse", "HEAD")).toBe(projectHead);
    expect(git(workspace, "status", "--porcelain")).toBe(projectStatus);
    expect(git(workspace, "log", "--oneline")).toMatch(/^[0-9a-f]+ project history\n$/);
    const unknown = await shared.cli.run(["undo", sessionId, "--turn", "ffffffff"]);
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toContain('no turn checkpoint matches "ffffffff"');
    // The checkpoints go with the session.
    const store = join(shared.daemon.home, "checkpoints", `${sessionId}.git`);
    expect(existsSync(store)).toBe(true);
    expect((await shared.cli.run(["rm", sessionId])).code).toBe(0);
    // Removed in the background, off the daemon's event loop.
    await eventually(
      () => !existsSync(store),
      () => `${store} still exists`,
    );
  }, 40_000);

  it("steps one turn further back with each undo, and show prints the run ids undo --turn takes", async () => {
    const workspace = join(shared.cli.root, "steps");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "story.txt"), "v0\n");
    const turn = async (content: string, sessionId?: string): Promise<string> => {
      shared.provider.queue(
        toolCalls([{ name: "write_file", args: { path: "story.txt", content } }]),
        text("Done."),
      );
      const session = sessionId === undefined ? [] : ["--session", sessionId];
      const ran = await shared.cli.run(["run", "--json", ...session, `write ${content}`], { cwd: workspace });
      expect(ran.code, ran.stderr).toBe(0);
      return (JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as { session_id: string }).session_id;
    };
    const sessionId = await turn("v1\n");
    await turn("v2\n", sessionId);
    await turn("v3\n", sessionId);
    const story = (): string => readFileSync(join(workspace, "story.txt"), "utf8");
    expect(story()).toBe("v3\n");
    for (const expected of ["v2\n", "v1\n", "v0\n"]) {
      const undone = await shared.cli.run(["undo", sessionId]);
      expect(undone.code, undone.stderr).toBe(0);
      expect(story()).toBe(expected);
    }
    const nothingLeft = await shared.cli.run(["undo", sessionId]);
    expect(nothingLeft.code).toBe(4);
    expect(nothingLeft.stderr).toContain("every turn with a checkpoint is undone already");

    const shown = await shared.cli.run(["show", "--no-pager", sessionId]);
    const runIds = [...shown.stdout.matchAll(/── turn ([0-9a-f-]{36})/g)].map((match) => match[1]!);
    expect(runIds).toHaveLength(3);
    const redo = await shared.cli.run(["undo", sessionId, "--turn", runIds[2]!.slice(0, 13)]);
    expect(redo.code, redo.stderr).toBe(0);
    expect(story()).toBe("v2\n");
  }, 60_000);

  it("takes no checkpoint for a turn without tool calls, and says so for an unknown turn", async () => {
    shared.provider.script = () => text("nothing to do");
    const ran = await shared.cli.run(["run", "--json", "nothing"]);
    const sessionId = (JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as { session_id: string })
      .session_id;
    const diff = await shared.cli.run(["diff", sessionId]);
    expect(diff.code).toBe(4);
    expect(diff.stderr).toContain("checkpoints are taken for turns that call tools");
    expect(existsSync(join(shared.daemon.home, "checkpoints", `${sessionId}.git`))).toBe(false);
    const undo = await shared.cli.run(["undo", sessionId]);
    expect(undo.code).toBe(4);
    expect(undo.stderr).toContain(`session ${sessionId} has no workspace checkpoints`);
  }, 40_000);
});
