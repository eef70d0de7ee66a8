/**
 * `skein budget set|show|clear` and `skein run` under a budget, against a real daemon: a budget
 * set by prefix shows what is used and left; a turn a budget stops exits 6 saying so (also in
 * `--json`'s result); raising it lets the next run go on; bad options are usage errors.
 */
import { describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import { useCliDaemon } from "./support/cli-daemon.js";

describe("budget commands", () => {
  // Each answer reports 90 prompt and 10 output tokens: 100 toward a budget.
  const shared = useCliDaemon(() => text("fine", { usage: { input: 90, output: 10 } }));

  it("sets and shows a session's budget, stops a run that would exceed it with exit 6, and goes on once raised", async () => {
    const id = await shared.daemon.createSession();
    const prefix = id.slice(0, 13);
    const set = await shared.cli.run(["budget", "set", prefix, "--tokens", "150"]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe(
      `session ${id}: budget set; session budget: 0 of 150 tokens used (150 left) in total\n`,
    );

    const first = await shared.cli.run(["run", "-s", id, "one"]);
    expect(first.code, first.stderr).toBe(0);
    const stopped = await shared.cli.run(["run", "-s", id, "--json", "two"]);
    expect(stopped.code).toBe(6);
    expect(stopped.stderr).toMatch(/a budget that applies to the session is used up/);
    expect(stopped.stderr).toMatch(/skein budget show/);
    const result = JSON.parse(stopped.stdout.trim().split("\n").at(-1)!) as Record<string, unknown>;
    expect(result).toMatchObject({ type: "result", status: "completed", exit_reason: "budget_exhausted" });

    const shown = await shared.cli.run(["budget", "show", prefix]);
    expect(shown.stdout).toBe(`session ${id}: session budget: 100 of 150 tokens used (50 left) in total\n`);
    const json = await shared.cli.run(["budget", "show", prefix, "--json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      scope: "session",
      used: { tokens: 100 },
      exhausted: false,
    });

    expect(
      (await shared.cli.run(["budget", "set", prefix, "--tokens", "1000", "--period", "day"])).code,
    ).toBe(0);
    const again = await shared.cli.run(["run", "-s", id, "three"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain("fine");

    const cleared = await shared.cli.run(["budget", "clear", prefix]);
    expect(cleared.stdout).toBe(`session ${id}: own budget removed; no budget applies\n`);
  });

  it("refuses bad budget options as usage errors, and the daemon's refusals with its reason", async () => {
    const id = await shared.daemon.createSession();
    const none = await shared.cli.run(["budget", "set", id]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/give --tokens N, --cost USD or both/);
    expect((await shared.cli.run(["budget", "set", id, "--tokens", "-5"])).code).toBe(2);
    expect((await shared.cli.run(["budget", "set", id, "--cost", "lots"])).code).toBe(2);
    const period = await shared.cli.run(["budget", "set", id, "--tokens", "5", "--period", "week"]);
    expect(period.code).toBe(2);
    expect(period.stderr).toMatch(/--period must be total or day/);
    const huge = await shared.cli.run(["budget", "set", id, "--tokens", String(2 ** 52)]);
    expect(huge.code).toBe(1);
    expect(huge.stderr).toMatch(/maxTokens/);
    expect((await shared.cli.run(["budget", "show", id])).stdout).toBe(`session ${id}: no budget applies\n`);
  });

  it("gives a schedule a budget with skein schedule add --budget-*", async () => {
    const id = await shared.daemon.createSession();
    const added = await shared.cli.run([
      "schedule",
      "add",
      "0 7 * * *",
      "morning",
      "--session",
      id,
      "--id",
      "budgeted",
      "--budget-tokens",
      "5000",
      "--budget-cost",
      "0.5",
      "--budget-period",
      "day",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const stored = (await shared.daemon.api("/schedules/budgeted")).json<{ budget: unknown }>();
    expect(stored.budget).toEqual({ maxTokens: 5000, maxCostUsd: 0.5, period: "day" });
    const lonePeriod = await shared.cli.run([
      "schedule",
      "add",
      "0 7 * * *",
      "p",
      "--session",
      id,
      "--budget-period",
      "day",
    ]);
    expect(lonePeriod.code).toBe(2);
    expect(lonePeriod.stderr).toMatch(/--budget-period needs --budget-tokens or --budget-cost/);
    const week = await shared.cli.run([
      "schedule",
      "add",
      "0 7 * * *",
      "p",
      "--session",
      id,
      "--budget-tokens",
      "5",
      "--budget-period",
      "week",
    ]);
    expect(week.code).toBe(2);
  });
});
