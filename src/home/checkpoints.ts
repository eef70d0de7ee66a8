/**
 * Where the workspace checkpoints of a session live: a shadow git store under the daemon's
 * home (never the workspace's own `.git`), with two refs per turn, the workspace before the turn
 * and after it. The daemon writes them; `skein diff` and `skein undo` read them.
 *
 * Boundary rule: names and the git environment only; both sides run git themselves.
 */
import { join } from "node:path";

/** The shadow git directory of one session's checkpoints. */
export function checkpointStore(home: string, sessionId: string): string {
  return join(home, "checkpoints", `${sessionId}.git`);
}

/** The ref holding the workspace before (or after) a turn. */
export function checkpointRef(turnId: string, phase: "before" | "after"): string {
  return `refs/skein/turns/${turnId}/${phase}`;
}

/** The prefix of every checkpoint ref (for listing). */
export const checkpointRefPrefix = "refs/skein/turns/";

/**
 * The prefix of the refs that mark a turn as undone (each names the workspace as it was just
 * before the undo), so the next undo without a turn steps one turn further back.
 */
export const undoneRefPrefix = "refs/skein/undone/";

/**
 * The environment git runs with against a store: that store and the workspace, and nothing of
 * the user's git setup (no global or system config, hooks or fsmonitor).
 */
export function checkpointGitEnv(store: string, workspace: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: store,
    GIT_DIR: store,
    GIT_WORK_TREE: workspace,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_AUTHOR_NAME: "skein",
    GIT_AUTHOR_EMAIL: "skein@localhost",
    GIT_COMMITTER_NAME: "skein",
    GIT_COMMITTER_EMAIL: "skein@localhost",
    GIT_TERMINAL_PROMPT: "0",
  };
}
