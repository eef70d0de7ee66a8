import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { skeinBin } from "./support/cli-harness.js";

describe("skein writing into a pipe", () => {
  it("exits quietly when the reader goes away early, like `skein … | head`", async () => {
    const child = spawn(process.execPath, [skeinBin, "--help"], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // Read nothing: the pipe is closed before skein writes its help.
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) =>
      child.on("exit", (exitCode) => resolve(exitCode)),
    );
    expect(stderr).not.toMatch(/EPIPE|Unhandled/);
    expect(code).toBe(0);
  });
});
