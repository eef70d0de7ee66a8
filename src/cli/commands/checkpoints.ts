/**
 * `skein diff ID` and `skein undo ID`: what a turn changed in the session's workspace, and
 * putting the workspace back as it was before a turn, from the daemon's per-turn checkpoints
 * (a shadow git store under the home; see src/home/checkpoints.ts). The workspace's own `.git`
 * is never touched.
 *
 * Boundary rule: the daemon is asked for the session (its workspace, whether it runs); the
 * checkpoints are read with git directly. Undo refuses while the session runs a turn, and keeps
 * the state it replaces as a checkpoint of its own.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  checkpointGitEnv,
  checkpointRef,
  checkpointRefPrefix,
  checkpointStore,
  undoneRefPrefix,
} from "../../home/checkpoints.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

const run = promisify(execFile);

interface Checkpoints {
  sessionId: string;
  workspace: string;
  running: boolean;
  git(args: readonly string[], env?: Record<string, string>): Promise<string>;
  /** Run ids with checkpoints, oldest first, and which phases each has. */
  turns: Map<string, Set<string>>;
  /** Run ids an undo has put the workspace back before. */
  undone: Set<string>;
  store: string;
}

async function openCheckpoints(context: CliContext, ref: string): Promise<Checkpoints> {
  const client = await connect(context);
  let sessionId: string;
  let workspace: string;
  let running: boolean;
  let nodes: number;
  try {
    sessionId = await resolveSessionId(client, ref);
    const snapshot = await client.getSession(sessionId, 0);
    workspace = snapshot.workspace;
    running = snapshot.status.phase !== "idle";
    nodes = (await client.cluster().catch(() => null))?.nodes.length ?? 0;
  } finally {
    client.close();
  }
  const store = checkpointStore(context.home, sessionId);
  if (!existsSync(join(store, "HEAD"))) {
    // In a cluster the turns may have run on another node, whose home holds their checkpoints.
    throw new CliError(
      `session ${sessionId} has no workspace checkpoints in ${context.home}: ${nodes > 1 ? clusterReason : noCheckpointsReason}`,
      exitCodes.notFound,
    );
  }
  const baseEnv = checkpointGitEnv(store, workspace);
  const git = async (args: readonly string[], env: Record<string, string> = {}): Promise<string> =>
    (
      await run("git", ["-c", `core.excludesFile=${join(store, "info-exclude")}`, ...args], {
        env: { ...baseEnv, ...env },
        cwd: workspace,
        maxBuffer: 64 * 1024 * 1024,
      })
    ).stdout;
  const turns = new Map<string, Set<string>>();
  const refs = (await git(["for-each-ref", "--format=%(refname)", checkpointRefPrefix])).split("\n");
  for (const name of refs.filter((line) => line !== "").sort()) {
    const [turnId, phase] = name.slice(checkpointRefPrefix.length).split("/");
    if (turnId === undefined || phase === undefined) continue;
    turns.set(turnId, (turns.get(turnId) ?? new Set()).add(phase));
  }
  const undone = new Set(
    (await git(["for-each-ref", "--format=%(refname)", undoneRefPrefix]))
      .split("\n")
      .filter((line) => line !== "")
      .map((name) => name.slice(undoneRefPrefix.length)),
  );
  return { sessionId, workspace, running, git, turns, undone, store };
}

/** Why a session or a turn may have no checkpoint (only turns that call tools take them). */
const clusterReason =
  "this daemon is a node of a cluster, and each turn's checkpoints stay in the home of the node that ran it " +
  "(its workspace is on that machine too); run this command on that node's machine with its SKEIN_HOME. " +
  "Otherwise: " +
  "checkpoints are taken for turns that call tools, and none has since checkpoints began (or SKEIN_CHECKPOINTS=0)";

const noCheckpointsReason =
  "checkpoints are taken for turns that call tools, and none has since checkpoints began (or SKEIN_CHECKPOINTS=0)";

/**
 * The turn `--turn` names (a turn id prefix), or the latest one with a `before` checkpoint; with
 * `skipUndone` (an undo without `--turn`), the latest one not undone yet, so each undo steps one
 * turn further back.
 */
function pickTurn(checkpoints: Checkpoints, turn: string | undefined, skipUndone = false): string {
  const candidates = [...checkpoints.turns.keys()].filter((turnId) =>
    checkpoints.turns.get(turnId)?.has("before"),
  );
  if (turn === undefined) {
    const latest = candidates.filter((turnId) => !(skipUndone && checkpoints.undone.has(turnId))).at(-1);
    if (latest === undefined && candidates.length > 0)
      throw new CliError(
        `every turn with a checkpoint is undone already (the earliest: ${candidates[0]})`,
        exitCodes.notFound,
      );
    if (latest === undefined)
      throw new CliError(`the session has no turn checkpoints: ${noCheckpointsReason}`, exitCodes.notFound);
    return latest;
  }
  const matches = candidates.filter((turnId) => turnId.startsWith(turn.toLowerCase()));
  if (matches.length === 1) return matches[0]!;
  throw new CliError(
    matches.length === 0
      ? `no turn checkpoint matches "${turn}" (turns without tool calls take none)`
      : `turn prefix "${turn}" is ambiguous`,
    matches.length === 0 ? exitCodes.notFound : exitCodes.usage,
    `turns with checkpoints: ${candidates.map((turnId) => turnId.slice(0, 13)).join(", ")}`,
  );
}

/** The workspace as it is now, as a commit in the store (through a private index). */
async function snapshotNow(checkpoints: Checkpoints, label: string): Promise<string> {
  const env = { GIT_INDEX_FILE: join(checkpoints.store, "index-now") };
  await checkpoints.git(["add", "--all"], env);
  const tree = (await checkpoints.git(["write-tree"], env)).trim();
  return (await checkpoints.git(["commit-tree", tree, "-m", label])).trim();
}

/** `skein diff ID [--turn RUN]`: what the turn changed (a unified diff); by default the latest turn that called tools. */
export async function diffTurn(
  context: CliContext,
  ref: string,
  options: { turn?: string; stat?: boolean },
): Promise<ExitCode> {
  const checkpoints = await openCheckpoints(context, ref);
  const turnId = pickTurn(checkpoints, options.turn);
  const out = context.terminal.out;
  let after = checkpointRef(turnId, "after");
  if (checkpoints.turns.get(turnId)?.has("after") !== true) {
    writeLine(
      context.terminal.err,
      "the turn has no end checkpoint (it is running or was cut): showing changes up to now",
    );
    after = await snapshotNow(checkpoints, `now, for a diff of ${turnId}`);
  }
  const color = out.paint.bold("x") !== "x" ? "--color=always" : "--color=never";
  const diff = await checkpoints.git([
    "diff",
    color,
    ...(options.stat === true ? ["--stat"] : []),
    checkpointRef(turnId, "before"),
    after,
  ]);
  writeLine(context.terminal.err, out.paint.dim(`turn ${turnId} of session ${checkpoints.sessionId}`));
  out.stream.write(diff === "" ? "(the turn changed no files)\n" : diff);
  return exitCodes.ok;
}

/**
 * `skein undo ID [--turn RUN]`: the workspace back to how it was before the turn (by default the
 * latest that called tools and is not undone yet: a second undo steps one turn further back).
 */
export async function undoTurn(
  context: CliContext,
  ref: string,
  options: { turn?: string },
): Promise<ExitCode> {
  for (const line of await undoTurnLines(context, ref, options)) writeLine(context.terminal.out, line);
  return exitCodes.ok;
}

/** What `skein undo` does (the chat's `/undo` too), returning the lines that say what changed back. */
export async function undoTurnLines(
  context: CliContext,
  ref: string,
  options: { turn?: string },
): Promise<string[]> {
  const checkpoints = await openCheckpoints(context, ref);
  if (checkpoints.running) {
    throw new CliError(
      `session ${checkpoints.sessionId} is running a turn`,
      exitCodes.error,
      `interrupt it first (skein interrupt ${checkpoints.sessionId.slice(0, 13)})`,
    );
  }
  const turnId = pickTurn(checkpoints, options.turn, true);
  const before = checkpointRef(turnId, "before");
  // Kept, so an undo can be undone by hand: `git --git-dir STORE diff refs/skein/undo/…`.
  const now = await snapshotNow(checkpoints, `before undoing ${turnId}`);
  await checkpoints.git(["update-ref", `refs/skein/undo/${Date.now()}`, now]);
  await checkpoints.git(["update-ref", `${undoneRefPrefix}${turnId}`, now]);
  const changed = (await checkpoints.git(["diff", "--name-only", now, before])).split("\n").filter(Boolean);
  // The store's index is set to now, then the workspace (index and files) reset to `before`:
  // files the turns made are removed, the ones they changed or deleted come back.
  await checkpoints.git(["read-tree", now]);
  await checkpoints.git(["read-tree", "-u", "--reset", before]);
  const later = [...checkpoints.turns.keys()].filter((other) => other > turnId).length;
  return [
    `restored ${checkpoints.workspace} to before turn ${turnId}: ${changed.length} file${changed.length === 1 ? "" : "s"} changed back${later > 0 ? ` (${later} later turn${later === 1 ? "'s" : "s'"} changes undone too)` : ""}`,
    ...changed.map((path) => `  ${path}`),
  ];
}
