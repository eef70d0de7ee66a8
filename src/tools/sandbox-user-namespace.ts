/**
 * The user namespace of a sandbox with the outbound-only network, when the daemon does not run
 * as root.
 *
 * Boundary rule: writes only the id maps of a user namespace the daemon's own bwrap made and
 * still holds. Without privileges, bwrap makes the sandbox in a user namespace of the daemon's
 * user, which owns the sandbox's network namespace: slirp4netns and `nsenter` must join that one
 * to reach the network namespace. On its own, bwrap nests a second user namespace inside it
 * before the program starts (for a fresh `/dev`), and nothing names the first one any more. So
 * the sandbox is made with `--userns-block-fd` instead: bwrap stops right after making the
 * namespaces, before its child does anything, the daemon maps the daemon's user to root of the
 * namespace (slirp4netns's own sandbox needs root mapped there), attaches the network, and only
 * then lets bwrap go on; bwrap then makes no second namespace, and the program runs as root of
 * the sandbox's user namespace: the daemon's user outside, with no capability (`--cap-drop ALL`
 * empties its bounding set), like the program of a daemon run as root.
 */
import { writeFileSync } from "node:fs";
import { errorMessage } from "./system-error.js";

/** The daemon's user and group, mapped to root of a sandbox's user namespace. */
export interface SandboxUserNamespace {
  uid: number;
  gid: number;
}

/**
 * The user namespace a sandbox of this daemon gets: null when the daemon runs as root (bwrap
 * then makes none, and the helpers join the network namespace directly).
 */
export function sandboxUserNamespace(
  uid: number | undefined = process.geteuid?.(),
  gid: number | undefined = process.getegid?.(),
): SandboxUserNamespace | null {
  if (uid === undefined || gid === undefined || uid === 0) return null;
  return { uid, gid };
}

/** The lines of a one-id map that makes `outside` root (0) of the namespace. */
export function rootMapping(outside: number): string {
  if (!Number.isSafeInteger(outside) || outside < 0 || outside > 0xfffffffe) {
    throw new RangeError(`not a user or group id: ${String(outside)}`);
  }
  return `0 ${outside} 1\n`;
}

/** A user namespace could not be mapped; the sandbox must not run. */
class UserNamespaceMappingError extends Error {
  constructor(
    readonly pid: number,
    message: string,
  ) {
    super(message);
    this.name = "UserNamespaceMappingError";
  }
}

/**
 * Maps `owner` to root of the user namespace of `pid` (a sandbox bwrap holds on
 * `--userns-block-fd`): `setgroups` denied first, as the kernel requires of a map written
 * without privileges, then the uid and gid maps. Each file takes one write, once.
 */
export function mapUserNamespace(pid: number, owner: SandboxUserNamespace): void {
  const files: Array<[string, string]> = [
    ["setgroups", "deny"],
    ["uid_map", rootMapping(owner.uid)],
    ["gid_map", rootMapping(owner.gid)],
  ];
  for (const [file, content] of files) {
    try {
      writeFileSync(`/proc/${pid}/${file}`, content);
    } catch (error) {
      throw new UserNamespaceMappingError(
        pid,
        `cannot write the sandbox's ${file} (/proc/${pid}/${file}): ${errorMessage(error)}`,
      );
    }
  }
}
