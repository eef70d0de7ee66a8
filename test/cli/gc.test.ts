/**
 * `skein gc [--dry-run] [--json]` end to end, against a real daemon whose config.json deletes
 * sessions idle for a day: the dry run names the idle session and the bytes it would free and
 * removes nothing; the run deletes it and leaves the recent one; `skein verify` then passes.
 */
import { describe, expect, it } from "vitest";
import type { GcReport } from "../../src/api/retention.js";
import { text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

describe("skein gc", () => {
  const shared = useCliDaemon(() => text("ok"), { retention: { deleteIdleDays: 1 } });

  it("says what it would remove, then removes it, and every log left verifies", async () => {
    const { daemon, cli } = shared;
    const old = await daemon.createSession();
    await daemon.turn(old, "a question from long ago");
    const recent = await daemon.createSession();
    // The old session's actor unloads after a restart; its activity is made two days old.
    await daemon.restart({ crash: false });
    await daemon.sql("UPDATE sessions SET activity_at = ? WHERE id = ?", [Date.now() - 2 * 86_400_000, old]);

    const dry = await cli.run(["gc", "--dry-run"]);
    expect(dry.stderr).toBe("");
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(new RegExp(`would delete ${old} \\(idle; \\d+ entries, [\\d.]+ (B|KiB)\\)`));
    expect(dry.stdout).toMatch(/would free [\d.]+ (B|KiB): 1 sessions deleted, 0 pruned/);
    expect(await daemon.sql("SELECT 1 FROM sessions WHERE id = ?", [old])).toHaveLength(1);

    const run = await cli.run(["gc", "--json"]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as GcReport;
    expect(report.dry_run).toBe(false);
    expect(report.deleted.map((d) => d.session_id)).toEqual([old]);
    expect(report.bytes_freed).toBeGreaterThan(0);
    expect(await daemon.sql("SELECT 1 FROM sessions WHERE id = ?", [old])).toHaveLength(0);
    expect(await daemon.sql("SELECT 1 FROM sessions WHERE id = ?", [recent])).toHaveLength(1);

    const verify = await cli.run(["verify"]);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(recent);
    expect(verify.stdout).not.toContain(old);
  });
});
