/** The checks every route that takes a workspace makes, answered as 400 problems. */
import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { problem } from "../http/problem.js";

/**
 * Throw a 400 unless `workspace` is an absolute path to an existing directory the daemon may
 * read and write, that the tools accept (`workspaceProblem` says why not, e.g. it lies inside the daemon's home).
 */
export function checkWorkspace(
  workspace: string,
  workspaceProblem: (workspace: string) => string | null,
): void {
  if (!isAbsolute(workspace)) throw problem("invalid_request", "workspace must be an absolute path");
  let isDirectory = false;
  try {
    isDirectory = statSync(workspace).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory) throw problem("invalid_request", `workspace ${workspace} is not an existing directory`);
  try {
    // The tools list, read and write files there and commands start in it.
    accessSync(workspace, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch {
    throw problem(
      "invalid_request",
      `workspace ${workspace} is not readable and writable by the daemon (user id ${process.getuid?.() ?? "?"})`,
    );
  }
  const refused = workspaceProblem(workspace);
  if (refused !== null) throw problem("invalid_request", refused);
}
