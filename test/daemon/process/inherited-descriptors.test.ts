/** A daemon process keeps no descriptor its starter left open without close-on-exec. */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const moduleUrl = new URL("../../../src/daemon/process/inherited-descriptors.ts", import.meta.url).href;

/** Run a child that inherits descriptor 200 without close-on-exec; what its own child sees. */
async function descriptorsOfGrandchild(closeFirst: boolean): Promise<{ listing: string; closed: number[] }> {
  const script = `
    import { execFileSync } from "node:child_process";
    const { closeInheritedDescriptors } = await import(${JSON.stringify(moduleUrl)});
    const closed = ${closeFirst} ? closeInheritedDescriptors() : [];
    const listing = execFileSync("/bin/sh", ["-c", "ls /proc/self/fd"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    process.stdout.write(JSON.stringify({ listing, closed }));
  `;
  // bash opens descriptor 200 without close-on-exec (dash would set it; Node marks low inherited
  // descriptors close-on-exec at start, not high ones), then becomes Node.
  const child = spawn(
    "/bin/bash",
    [
      "-c",
      'exec 200</dev/null; exec "$0" "$@"',
      process.execPath,
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      script,
    ],
    { cwd: join(import.meta.dirname, "../../.."), stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  await new Promise((done) => child.once("close", done));
  return JSON.parse(out) as { listing: string; closed: number[] };
}

describe("closeInheritedDescriptors", () => {
  it("closes a descriptor inherited without close-on-exec, so the process's children never get it", async () => {
    const fds = (listing: string) => listing.trim().split("\n").map(Number);
    const before = await descriptorsOfGrandchild(false);
    expect(fds(before.listing)).toContain(200);
    const after = await descriptorsOfGrandchild(true);
    expect(after.closed).toContain(200);
    // Only stdin, stdout, stderr and the descriptor `ls` opens on /proc/self/fd itself.
    expect(fds(after.listing)).toEqual([0, 1, 2, 3]);
  });
});
