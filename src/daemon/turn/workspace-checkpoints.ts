/**
 * Checkpoints of a session's workspace around each turn, in a shadow git store under the home
 * (src/home/checkpoints.ts): `git add -A` into the store's own index, then a commit, its id kept
 * as the turn's `before` or `after` ref. The workspace's own `.git` is never read or written
 * (git skips it), its `.gitignore` files are honoured, and the hidden paths (the home, the
 * database) are excluded.
 *
 * Boundary rule: best effort. A checkpoint that fails or takes too long (a huge workspace) is
 * logged and skipped; it never fails or blocks a turn for long.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { checkpointGitEnv, checkpointRef, checkpointStore } from "../../home/checkpoints.js";
import type { CheckpointPhase } from "../session/session-services.js";

const run = promisify(execFile);

/** How long one checkpoint may take before it is given up. */
const checkpointTimeoutMs = 10_000;

export interface CheckpointOptions {
  home: string;
  /** Paths no tool may see (the home, the database files): never copied into a checkpoint. */
  hiddenPaths: readonly string[];
}

/**
 * Record the workspace as it is now as the turn's `phase` checkpoint; `after-unchanged` makes
 * the turn's end its start (no tool ran) without looking at the workspace.
 */
export async function checkpointWorkspace(
  options: CheckpointOptions,
  sessionId: string,
  workspace: string,
  turnId: string,
  phase: CheckpointPhase,
): Promise<void> {
  const store = checkpointStore(options.home, sessionId);
  const env = checkpointGitEnv(store, workspace);
  const git = (args: readonly string[]) =>
    run("git", [...args], { env, cwd: workspace, timeout: checkpointTimeoutMs, maxBuffer: 16 * 1024 * 1024 });
  if (phase === "after-unchanged") {
    await git(["update-ref", checkpointRef(turnId, "after"), checkpointRef(turnId, "before")]);
    return;
  }
  if (!existsSync(join(store, "HEAD"))) {
    mkdirSync(store, { recursive: true, mode: 0o700 });
    await git(["init", "--quiet"]);
  }
  writeFileSync(join(store, "info-exclude"), excludes(workspace, options.hiddenPaths));
  // A checkpoint killed at its timeout leaves git's lock behind; checkpoints of a session never overlap.
  rmSync(join(store, "index.lock"), { force: true });
  await git(["-c", `core.excludesFile=${join(store, "info-exclude")}`, "add", "--all"]);
  const tree = (await git(["write-tree"])).stdout.trim();
  const commit = (await git(["commit-tree", tree, "-m", `${phase} turn ${turnId}`])).stdout.trim();
  await git(["update-ref", checkpointRef(turnId, phase), commit]);
}

/** Exclude patterns (relative to the workspace) for the hidden paths inside it. */
function excludes(workspace: string, hiddenPaths: readonly string[]): string {
  const lines: string[] = [];
  for (const hidden of hiddenPaths) {
    const inside = relative(workspace, hidden);
    if (inside === "" || inside.startsWith("..")) continue;
    lines.push(`/${inside.replaceAll("\\", "/")}`);
  }
  return `${lines.join("\n")}\n`;
}
