/**
 * Maps paths a model supplies onto real paths inside one session's workspace.
 *
 * Boundary rule: every filesystem path a built-in file tool touches is resolved here first, and
 * only the returned real path is used afterwards. Nothing outside the workspace's real path is
 * ever returned: `..` is applied to the text of the request, then symlinks are followed with the
 * kernel's own realpath on the deepest existing ancestor (dangling links are followed by hand),
 * and the result must stay under the workspace's realpath and outside every hidden path. Only
 * realpath, lstat and readlink are used: a refused path is never opened. Because the tools run
 * alongside a shell that can swap directories for symlinks, callers then open the result through
 * a `PinnedDirectory`, which follows no symlink, so what they open is what was checked here.
 */
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "../model/tools.js";
import { textArgument } from "./argument-schema.js";
import { fileError } from "./file-error.js";
import { type HiddenPaths, hiddenPathCovering, NO_HIDDEN_PATHS } from "./hidden-paths.js";
import { isInsideDirectory } from "./path-containment.js";
import { errorCode, errorMessage } from "./system-error.js";

/** Why a path was refused. */
export type WorkspacePathProblem =
  | "invalid_path"
  | "outside_workspace"
  | "hidden_path"
  | "symlink_escape"
  | "too_many_links"
  | "workspace_unavailable";

/** A path that cannot be used inside the workspace; the message names the path as requested. */
export class WorkspacePathError extends ToolError {
  constructor(
    readonly problem: WorkspacePathProblem,
    readonly requestedPath: string,
    readonly workspace: string,
    message: string,
  ) {
    super(problem === "workspace_unavailable" ? "execution_failed" : "invalid_argument", message);
    this.name = "WorkspacePathError";
  }
}

/** Same bound the kernel uses for symlink chains (ELOOP). */
const MAX_SYMLINK_HOPS = 40;

/** The workspace's real path (symlinks resolved); fails with a typed error if it is unusable. */
export async function realWorkspace(workspace: string): Promise<string> {
  if (!path.isAbsolute(workspace) || workspace.includes("\0")) {
    throw new WorkspacePathError(
      "workspace_unavailable",
      workspace,
      workspace,
      `workspace "${workspace}" is not an absolute path`,
    );
  }
  try {
    return await realpath(workspace);
  } catch (error) {
    throw new WorkspacePathError(
      "workspace_unavailable",
      workspace,
      workspace,
      `workspace "${workspace}" is not accessible: ${errorMessage(error)}`,
    );
  }
}

/**
 * Resolves a relative or absolute path to an absolute real path guaranteed to be inside the
 * workspace and outside every hidden path (a symlink into one is refused too). The final
 * components may not exist yet (for writes); they are then appended to the real path of their
 * deepest existing ancestor.
 */
export async function resolveInWorkspace(
  workspace: string,
  requested: string,
  hidden: HiddenPaths = NO_HIDDEN_PATHS,
): Promise<string> {
  if (requested.length === 0) {
    throw new WorkspacePathError("invalid_path", requested, workspace, "path is empty");
  }
  if (requested.includes("\0")) {
    throw new WorkspacePathError(
      "invalid_path",
      requested,
      workspace,
      `path ${JSON.stringify(requested)} contains a NUL byte`,
    );
  }
  const realRoot = await realWorkspace(workspace);
  const lexicalRoot = path.resolve(workspace);
  const candidate = path.resolve(lexicalRoot, requested);
  if (!isInsideDirectory(lexicalRoot, candidate) && !isInsideDirectory(realRoot, candidate)) {
    throw new WorkspacePathError(
      "outside_workspace",
      requested,
      workspace,
      `path "${requested}" is outside the workspace`,
    );
  }
  const resolved = await confine({ realRoot, lexicalRoot, requested, workspace }, candidate, 0);
  if (hiddenPathCovering(hidden, resolved) !== undefined) throw hiddenPathError(requested, workspace);
  return resolved;
}

/** The refusal of a path that is, or lies under, or leads through a symlink to a hidden path. */
export function hiddenPathError(requested: string, workspace: string): WorkspacePathError {
  return new WorkspacePathError(
    "hidden_path",
    requested,
    workspace,
    `path "${requested}" is hidden from the agent: it holds the daemon's private data (its home or database)`,
  );
}

interface Confinement {
  realRoot: string;
  lexicalRoot: string;
  requested: string;
  workspace: string;
}

async function confine(scope: Confinement, candidate: string, hops: number): Promise<string> {
  const missing: string[] = [];
  let existing = candidate;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInsideDirectory(scope.realRoot, real)) throw symlinkEscape(scope);
      return path.join(real, ...missing);
    } catch (error) {
      if (error instanceof WorkspacePathError) throw error;
      const code = errorCode(error);
      if (code === "ELOOP") throw tooManyLinks(scope);
      if (code !== "ENOENT" && code !== "ENOTDIR") throw unreadable(scope, error);
    }
    // realpath failed: `existing` is missing, or is a dangling symlink that writes would follow.
    const stats = await lstat(existing).catch(() => undefined);
    if (stats?.isSymbolicLink()) {
      if (hops + 1 > MAX_SYMLINK_HOPS) throw tooManyLinks(scope);
      const parent = await realpath(path.dirname(existing)).catch((error: unknown) => {
        throw unreadable(scope, error);
      });
      if (!isInsideDirectory(scope.realRoot, parent)) throw symlinkEscape(scope);
      const target = path.resolve(parent, await readlink(existing));
      const continued = path.join(target, ...missing);
      if (!isInsideDirectory(scope.realRoot, continued) && !isInsideDirectory(scope.lexicalRoot, continued)) {
        throw symlinkEscape(scope);
      }
      return confine(scope, continued, hops + 1);
    }
    const parent = path.dirname(existing);
    // The workspace root exists (realWorkspace checked it), so the walk stops before "/".
    if (parent === existing) throw symlinkEscape(scope);
    missing.unshift(path.basename(existing));
    existing = parent;
  }
}

/** The JSON Schema of a file tool's `path` argument, as the model is told it. */
export const filePathArgument = textArgument("File path, relative to the workspace root.");

/** A path as the model should see it: relative to the workspace root ("." for the root). */
export function workspaceRelative(realRoot: string, absolute: string): string {
  const relative = path.relative(realRoot, absolute);
  return relative === "" ? "." : relative;
}

function symlinkEscape(scope: Confinement): WorkspacePathError {
  return new WorkspacePathError(
    "symlink_escape",
    scope.requested,
    scope.workspace,
    `path "${scope.requested}" leads outside the workspace through a symbolic link`,
  );
}

function tooManyLinks(scope: Confinement): WorkspacePathError {
  return new WorkspacePathError(
    "too_many_links",
    scope.requested,
    scope.workspace,
    `path "${scope.requested}" has too many levels of symbolic links`,
  );
}

function unreadable(scope: Confinement, error: unknown): ToolError {
  return new ToolError("execution_failed", `cannot resolve "${scope.requested}": ${errorMessage(error)}`);
}

/**
 * The directory a listing or search starts at (`requested`, relative to the workspace), resolved
 * inside the workspace and off its hidden paths, with the workspace's real root beside it.
 */
export async function startDirectory(
  workspace: string,
  hidden: HiddenPaths,
  requested: string,
): Promise<{ realRoot: string; start: string }> {
  const realRoot = await realWorkspace(workspace);
  const start = await resolveInWorkspace(workspace, requested, hidden);
  const stats = await lstat(start).catch((error: unknown) => {
    throw fileError(requested, error);
  });
  if (!stats.isDirectory()) throw new ToolError("execution_failed", `"${requested}" is not a directory`);
  return { realRoot, start };
}
