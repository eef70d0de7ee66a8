/**
 * The checkout as an unprivileged user sees it, wherever it lies: CI clones the project into a
 * 0700 temporary directory of root's, which `nobody` cannot enter. Each process started through
 * a view runs in a private mount namespace of its own, where the checkout is bound onto
 * `<view>/project` (`<view>`: a 0755 temporary directory of the test's); it then switches to
 * the user (no supplementary groups, no capability) and starts in that directory. Nothing
 * outside the view's own temporary directory changes, and the bind ends with the process.
 *
 * Boundary rule: test support; needs root and util-linux's `unshare`, `mount` and `setpriv`.
 */
import { type ChildProcess, type StdioOptions, spawn, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { UnprivilegedUser } from "./unprivileged-user.js";

const checkout = realpathSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../.."));

// $1 the checkout, $2 where the user sees it, $3 $4 the user's ids, then the command and its arguments.
const enterView =
  'mount --bind "$1" "$2" && cd "$2" && uid=$3 gid=$4 && shift 4 && ' +
  'exec setpriv --reuid "$uid" --regid "$gid" --clear-groups -- "$@"';

/** The checkout bound where `user` can reach it, for the processes started through this view. */
export class CheckoutView {
  private constructor(
    private readonly user: UnprivilegedUser,
    private readonly directory: string,
    /** The checkout's root as the user's processes see it. */
    readonly root: string,
    private readonly unshare: string,
  ) {}

  /**
   * Makes the view's directory and checks that `user` can read the checkout through it: throws,
   * saying what failed, when it cannot (not root, util-linux missing).
   */
  static open(user: UnprivilegedUser): CheckoutView {
    const directory = mkdtempSync(path.join(tmpdir(), "skein-checkout-"));
    chmodSync(directory, 0o755);
    const root = path.join(directory, "project");
    mkdirSync(root, { mode: 0o755 });
    const unshare = ["/usr/bin/unshare", "/bin/unshare"].find((candidate) => existsSync(candidate));
    const view = new CheckoutView(user, directory, root, unshare ?? "unshare");
    const check = spawnSync(
      view.unshare,
      view.argumentsOf(process.execPath, ["-e", "require('node:fs').accessSync('package.json')"]),
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      },
    );
    if (check.status !== 0) {
      view.close();
      throw new Error(
        `cannot show the checkout ${checkout} to ${user.name} at ${root}: ` +
          `${(check.stderr || String(check.error)).trim().slice(0, 400)}`,
      );
    }
    return view;
  }

  /** `named` (a path or a file URL) as the user's processes see it: moved when it lies in the checkout. */
  pathOf(named: string): string {
    const isUrl = /^file:/i.test(named);
    const hostPath = isUrl ? fileURLToPath(named) : named;
    const relative = path.relative(checkout, hostPath);
    if (!path.isAbsolute(hostPath) || relative.startsWith("..") || path.isAbsolute(relative)) return named;
    const seen = path.join(this.root, relative);
    return isUrl ? pathToFileURL(seen).href : seen;
  }

  /** Starts `command` with `args` as the user, in the checkout's root, with `env` as its whole environment. */
  spawn(
    command: string,
    args: readonly string[],
    options: { env: Record<string, string>; stdio?: StdioOptions },
  ): ChildProcess {
    return spawn(this.unshare, this.argumentsOf(command, args), {
      env: options.env,
      stdio: options.stdio ?? ["ignore", "pipe", "pipe"],
    });
  }

  /** Runs `command` as `spawn` does, to its end; its stdout, or an error with its stderr when it fails. */
  async run(command: string, args: readonly string[], env: Record<string, string>): Promise<string> {
    const child = this.spawn(command, args, { env });
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
    if (code !== 0) {
      throw new Error(`${command} ${args.join(" ")} as ${this.user.name} exited ${String(code)}: ${stderr}`);
    }
    return stdout;
  }

  /** Removes the view's directory (its binds live only as long as the processes that made them). */
  close(): void {
    rmSync(this.directory, { recursive: true, force: true });
  }

  // unshare execs the shell, which execs setpriv, which execs the command: one pid throughout.
  private argumentsOf(command: string, args: readonly string[]): string[] {
    return [
      ...["--mount", "--propagation", "private", "--", "/bin/sh", "-c", enterView, "sh"],
      ...[checkout, this.root, String(this.user.uid), String(this.user.gid)],
      command,
      ...args,
    ];
  }
}
