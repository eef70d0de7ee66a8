/**
 * In a cluster a session's turns run on whichever node owns it, so its workspace must be there:
 * the same path on every node (a shared filesystem). A turn on a node where it is missing is
 * refused with a message that says so, instead of running tools that fail one by one.
 */
import { stat } from "node:fs/promises";

/** Why `workspace` cannot be used on this node (`nodeUrl`), or null when it is a directory here. */
export async function workspaceMissingOnNode(workspace: string, nodeUrl: string): Promise<string | null> {
  const found = await stat(workspace).catch((error: NodeJS.ErrnoException) => error);
  if (found instanceof Error) {
    if (found.code !== "ENOENT" && found.code !== "ENOTDIR") return null;
  } else if (found.isDirectory()) {
    return null;
  }
  return (
    `workspace "${workspace}" is not a directory on the node that runs this session's turns (${nodeUrl}): ` +
    "in a cluster every node must see each session's workspace at the same path (a shared filesystem)"
  );
}
