/**
 * Running part of a test as an unprivileged user: the tests run as root, but a person runs the
 * daemon as themselves, and the sandbox works differently then (bwrap makes a user namespace).
 * The user is `nobody`, which every Debian system has; processes are started as it through a
 * `CheckoutView` (checkout-view.ts), which also lets it reach a checkout it could not enter.
 *
 * Boundary rule: test support; needs root to switch users.
 */
import { execFileSync } from "node:child_process";
import { chownSync, lchownSync, readdirSync } from "node:fs";
import path from "node:path";

/** A user that is not root, and its group. */
export interface UnprivilegedUser {
  name: string;
  uid: number;
  gid: number;
}

/** `nobody`, when this process can switch to it (it runs as root); null otherwise. */
export function unprivilegedUser(): UnprivilegedUser | null {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync("id", ["-u", "nobody"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "nobody"], { encoding: "utf8" }).trim());
    if (!Number.isInteger(uid) || !Number.isInteger(gid) || uid === 0) return null;
    return { name: "nobody", uid, gid };
  } catch {
    return null;
  }
}

/** Gives `directory` and everything in it to `user` (a symlink itself, never what it leads to). */
export function giveTree(directory: string, user: UnprivilegedUser): void {
  chownSync(directory, user.uid, user.gid);
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const inner = path.join(directory, entry.name);
    if (entry.isDirectory()) giveTree(inner, user);
    else lchownSync(inner, user.uid, user.gid);
  }
}
