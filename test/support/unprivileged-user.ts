/**
 * Running part of a test as an unprivileged user: the tests run as root, but a person runs the
 * daemon as themselves, and the sandbox works differently then (bwrap makes a user namespace).
 * The user is `nobody`, which every Debian system has; a process is started as it with Node's
 * own `uid`/`gid` spawn options (libuv also drops the supplementary groups).
 *
 * Boundary rule: test support; needs root to switch users, and the checkout and node_modules
 * readable by that user (checked, with a message that says what is not).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { chownSync, lchownSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** A user that is not root, and its group. */
export interface UnprivilegedUser {
  name: string;
  uid: number;
  gid: number;
}

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

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

/**
 * Throws, saying what to fix, unless `user` can read the checkout and load the TypeScript loader
 * from node_modules (a checkout under a private directory such as /root cannot be used).
 */
export function requireReadableCheckout(user: UnprivilegedUser): void {
  const result = spawnSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "-e",
      `require("node:fs").accessSync(${JSON.stringify(path.join(projectRoot, "package.json"))})`,
    ],
    {
      cwd: projectRoot,
      uid: user.uid,
      gid: user.gid,
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "" },
    },
  );
  if (result.status !== 0) {
    throw new Error(
      `these tests run part of themselves as ${user.name}, which cannot read the checkout at ${projectRoot} ` +
        `or its node_modules (${(result.stderr || String(result.error)).trim().slice(0, 400)}); ` +
        "check out the project where every user may read it",
    );
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

/** Starts Node as `user` with `args` in the checkout, with `env` as its whole environment. */
export function spawnNodeAs(
  user: UnprivilegedUser,
  args: readonly string[],
  env: Record<string, string>,
): ChildProcess {
  return spawn(process.execPath, [...args], {
    cwd: projectRoot,
    uid: user.uid,
    gid: user.gid,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs Node as `user` to its end; its stdout, or an error with its stderr when it fails. */
export async function runNodeAs(
  user: UnprivilegedUser,
  args: readonly string[],
  env: Record<string, string>,
): Promise<string> {
  const child = spawnNodeAs(user, args, env);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", resolve);
  });
  if (code !== 0) throw new Error(`node ${args.join(" ")} as ${user.name} exited ${String(code)}: ${stderr}`);
  return stdout;
}
