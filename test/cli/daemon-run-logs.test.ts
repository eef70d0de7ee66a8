/**
 * `skein daemon run` (what `npm start` runs) logs readable lines on a terminal and JSON records
 * when its output is piped or --json is given; nothing else (no warnings) is printed.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually, skeinBin } from "./support/cli-harness.js";
import { TmuxPane } from "./support/tmux-pane.js";

describe("the foreground daemon's log", () => {
  const root = mkdtempSync(join(tmpdir(), "skein-daemon-run-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: root, NO_COLOR: "1" };

  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("is readable lines on a terminal, and stops cleanly on Ctrl-C", async () => {
    const pane = TmuxPane.start([process.execPath, skeinBin, "daemon", "run"], {
      cwd: root,
      env: { ...env, SKEIN_HOME: join(root, "tty-home"), TERM: "xterm" },
    });
    try {
      await eventually(
        () => / INFO {2}ready port=\d+ /.test(pane.capture()),
        () => pane.capture(),
      );
      pane.press("C-c");
      await eventually(
        () => pane.capture().includes("[exit 0]"),
        () => pane.capture(),
      );
      const screen = pane.capture();
      expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}run_command is sandboxed/m);
      expect(screen).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}stopped /m);
      expect(screen).not.toContain('{"level"');
      expect(screen).not.toMatch(/Warning|DEP0|FSTDEP/);
    } finally {
      pane.close();
    }
  }, 30_000);

  it("is JSON records when piped, and with --json", async () => {
    for (const args of [
      ["daemon", "run"],
      ["daemon", "run", "--json"],
    ]) {
      const child = spawn(process.execPath, [skeinBin, ...args], {
        env: { ...env, SKEIN_HOME: join(root, `piped-home-${args.length}`) },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
      });
      await eventually(
        () => stdout.includes('"msg":"ready"'),
        () => stdout + stderr,
      );
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("close", resolve));
      for (const line of stdout.trim().split("\n")) expect(JSON.parse(line)).toHaveProperty("level");
      expect(stderr).not.toMatch(/Warning|DEP0|FSTDEP/);
    }
  }, 30_000);
});
