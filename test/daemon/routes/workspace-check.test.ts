/**
 * The workspace check of session creation: a folder the daemon's user cannot read and write is
 * refused with a sentence saying so. Run as root (who may read anything), the check runs in a
 * child process with another user id, as a daemon of that user would.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "skein-workspace-check-"));
chmodSync(root, 0o755);
// Bundled into the world-readable folder: the other user cannot reach the project when it lies
// under a private folder (a clone in a 0700 temporary directory, say).
const checkModule = join(root, "workspace-check.mjs");
buildSync({
  entryPoints: [join(import.meta.dirname, "../../../src/daemon/routes/workspace-check.ts")],
  bundle: true,
  platform: "node",
  format: "esm",
  outfile: checkModule,
  logLevel: "silent",
});
chmodSync(checkModule, 0o644);

/** What checkWorkspace says about `workspace`, checked as an unprivileged user. */
function verdict(workspace: string): string {
  const script = `import { checkWorkspace } from ${JSON.stringify(checkModule)};
try { checkWorkspace(${JSON.stringify(workspace)}, () => null); console.log("accepted"); }
catch (error) { console.log(error.message); }`;
  const asRoot = process.getuid?.() === 0;
  const answer = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    encoding: "utf8",
    ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
  });
  return `${answer.stdout}${answer.stderr}`.trim();
}

describe("the workspace check", () => {
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("accepts a folder the daemon can read and write", () => {
    const open = join(root, "open");
    mkdirSync(open);
    chmodSync(open, 0o777);
    expect(verdict(open)).toBe("accepted");
  });

  it("refuses a folder the daemon cannot read or write, saying so", () => {
    const closed = join(root, "closed");
    mkdirSync(closed);
    chmodSync(closed, process.getuid?.() === 0 ? 0o700 : 0o000);
    expect(verdict(closed)).toMatch(
      /^workspace .*closed is not readable and writable by the daemon \(user id \d+\)$/,
    );
  });

  it("refuses a folder that does not exist", () => {
    expect(verdict(join(root, "missing"))).toMatch(/missing is not an existing directory$/);
  });
});
