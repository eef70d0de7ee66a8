/**
 * Budgets against real daemons and the fake provider: a session's `maxTokens` stops its turn
 * with `budget_exhausted` before the request that would take it past the limit, a raise through
 * `PUT /sessions/{id}/budget` lets `continue` go on, and the change is a logged, verified entry;
 * bad budgets are refused with nothing written; a profile's daily budget spans its sessions; and
 * the usage of an answer committed before a SIGKILL still counts after the restart. Both backends.
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { hang, text, toolCalls } from "../support/fake-provider/reply.js";
import { type DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

interface BudgetView {
  scope: string;
  period: string;
  limit: { max_tokens: number | null; max_cost_usd: number | null };
  used: { tokens: number; cost_usd: number };
  remaining: { tokens: number | null; cost_usd: number | null };
  period_end: string | null;
  exhausted: boolean;
}

/** Each request of these scripts reports 90 prompt and 10 output tokens: 100 toward a budget. */
const hundred = { usage: { input: 90, output: 10 } };

function listFiles(id: string) {
  return toolCalls([{ name: "list_files", args: { path: "." }, id }], hundred);
}

async function budgetOf(app: DaemonHarness, sessionId: string): Promise<BudgetView | null> {
  const response = await app.api(`/sessions/${sessionId}?tail=0`);
  expect(response.status).toBe(200);
  return response.json<{ budget: BudgetView | null }>().budget;
}

async function entriesOf(
  app: DaemonHarness,
  sessionId: string,
  kind: string,
): Promise<Record<string, unknown>[]> {
  const rows = await app.sql<{ entry: string }>(
    "SELECT entry FROM transcript WHERE session = ? AND kind = ? ORDER BY position",
    [sessionId, kind],
  );
  return rows.map((row) => JSON.parse(row.entry) as Record<string, unknown>);
}

async function putBudget(app: DaemonHarness, sessionId: string, body: unknown) {
  return app.api(`/sessions/${sessionId}/budget`, { method: "PUT", body });
}

describe.each(databaseKinds)("budgets ($name)", ({ database }) => {
  const fake = useFakeProvider();

  it("stops a session at its maxTokens before the request that would exceed it, and a raise lets continue go on", async () => {
    let call = 0;
    const app = await fake.daemon({ database }, () => listFiles(`call_${call++}`));
    const sessionId = await app.createSession();
    expect(await budgetOf(app, sessionId)).toBeNull();
    const set = await putBudget(app, sessionId, { maxTokens: 250 });
    expect(set.status).toBe(200);
    expect(set.json()).toMatchObject({ session_id: sessionId, own: { maxTokens: 250, period: "total" } });

    const inputId = uuidv7();
    await app.prompt(sessionId, "list the files until told to stop", inputId);
    await app.idle(sessionId);
    // 0 + 100 and 100 + 100 fit in 250; a third request (200 + 100) would not: it is never sent.
    expect(fake.provider.requests.length).toBe(2);
    expect((await app.receipt(sessionId, inputId)).turn).toMatchObject({ state: "completed" });
    const outcomes = await entriesOf(app, sessionId, "run_outcome");
    expect(outcomes.at(-1)).toMatchObject({ outcome: { type: "budget_exhausted" }, interrupted: false });
    expect(String((outcomes.at(-1)!.outcome as { message: string }).message)).toMatch(
      /the session's budget would be exceeded by the next model request \(used 200 of 250 tokens in total\)/,
    );
    expect(await budgetOf(app, sessionId)).toEqual({
      scope: "session",
      period: "total",
      limit: { max_tokens: 250, max_cost_usd: null },
      used: { tokens: 200, cost_usd: 0 },
      remaining: { tokens: 50, cost_usd: null },
      period_end: null,
      exhausted: false,
    });
    // The log holds each request's usage with its answer.
    const answers = await entriesOf(app, sessionId, "assistant_items");
    expect(answers.map((entry) => entry.usage)).toEqual([
      {
        input_tokens: 90,
        output_tokens: 10,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        profile: "fixture",
      },
      {
        input_tokens: 90,
        output_tokens: 10,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        profile: "fixture",
      },
    ]);

    // `continue` under the same budget is refused again at once, without a request.
    const again = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "continue" },
    });
    expect(again.status).toBe(202);
    await app.idle(sessionId);
    expect(fake.provider.requests.length).toBe(2);

    const raised = await putBudget(app, sessionId, { maxTokens: 1000 });
    expect(raised.json<{ budget: BudgetView }>().budget).toMatchObject({ remaining: { tokens: 800 } });
    fake.provider.script = () => text("done", hundred);
    const resumed = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "continue" },
    });
    expect(resumed.status).toBe(202);
    await app.idle(sessionId);
    expect(fake.provider.requests.length).toBe(3);
    expect((await entriesOf(app, sessionId, "run_outcome")).at(-1)).toMatchObject({
      outcome: { type: "finished" },
    });
    expect(await budgetOf(app, sessionId)).toMatchObject({
      used: { tokens: 300 },
      remaining: { tokens: 700 },
    });

    const changes = await entriesOf(app, sessionId, "budget_changed");
    expect(changes.map((entry) => entry.budget)).toEqual([
      { maxTokens: 250, period: "total" },
      { maxTokens: 1000, period: "total" },
    ]);
    const verified = await app.api(`/sessions/${sessionId}/verify`);
    expect(verified.json()).toMatchObject({ status: "verified", problem: null });

    const removed = await app.api(`/sessions/${sessionId}/budget`, { method: "DELETE" });
    expect(removed.json()).toEqual({ session_id: sessionId, own: null, budget: null });
    expect((await entriesOf(app, sessionId, "budget_changed")).at(-1)).toMatchObject({ budget: null });
  });

  it("refuses a bad budget with a 400 problem and changes nothing", async () => {
    const app = await fake.daemon({ database });
    const sessionId = await app.createSession();
    const refused: Array<[unknown, RegExp]> = [
      [{ maxTokens: -1 }, /maxTokens/],
      [{ maxTokens: "100" }, /maxTokens/],
      [{ maxTokens: 1.5 }, /maxTokens/],
      [{ maxCostUsd: -0.5 }, /maxCostUsd/],
      [{ maxTokens: 100, period: "week" }, /period/],
      [{ maxTokens: 100, unknown: 1 }, /unknown|additional/i],
      [{}, /must set "maxTokens", "maxCostUsd" or both/],
      [{ period: "day" }, /must set "maxTokens", "maxCostUsd" or both/],
      [[100], /object/i],
      [null, /object|null/i],
    ];
    for (const [body, detail] of refused) {
      const answer = await putBudget(app, sessionId, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.headers["content-type"]).toMatch(/application\/problem\+json/);
      expect(answer.json<{ detail: string }>().detail, JSON.stringify(body)).toMatch(detail);
    }
    const unparsable = await app.api(`/sessions/${sessionId}/budget`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      rawBody: "{maxTokens: 1",
    });
    expect(unparsable.status).toBe(400);
    expect(await entriesOf(app, sessionId, "budget_changed")).toEqual([]);
    expect(await budgetOf(app, sessionId)).toBeNull();
    const unknownSession = await putBudget(app, uuidv7(), { maxTokens: 1 });
    expect(unknownSession.status).toBe(404);
  });

  it("shares a profile's daily budget between its sessions", async () => {
    const app = await fake.daemon(
      { database, config: { budgets: { profiles: { fixture: { maxTokens: 200 } } } } },
      () => text("ok", hundred),
    );
    const first = await app.createSession();
    await app.turn(first, "one");
    await app.turn(first, "two");
    expect(fake.provider.requests.length).toBe(2);
    const second = await app.createSession();
    await app.turn(second, "three");
    expect(fake.provider.requests.length).toBe(2);
    expect((await entriesOf(app, second, "run_outcome")).at(-1)).toMatchObject({
      outcome: {
        type: "budget_exhausted",
        message: expect.stringMatching(/profile fixture's budget is used up/),
      },
    });
    const nextMidnight = (Math.floor(Date.now() / 86_400_000) + 1) * 86_400_000;
    expect(await budgetOf(app, second)).toEqual({
      scope: "profile",
      period: "day",
      limit: { max_tokens: 200, max_cost_usd: null },
      used: { tokens: 200, cost_usd: 0 },
      remaining: { tokens: 0, cost_usd: null },
      period_end: new Date(nextMidnight).toISOString(),
      exhausted: true,
    });
    expect(await budgetOf(app, first)).toMatchObject({ scope: "profile", exhausted: true });
  });

  it("caps what a schedule's firings may use together, whatever their session", async () => {
    const app = await fake.daemon({ database }, () => text("tick", hundred));
    const sessionId = await app.createSession();
    const created = await app.api("/schedules", {
      method: "POST",
      body: {
        id: "capped",
        cron: "* * * * * *",
        session_id: sessionId,
        prompt: "tick",
        missed: "skip",
        budget: { maxTokens: 250 },
      },
    });
    expect(created.status).toBe(201);
    expect(created.json()).toMatchObject({ budget: { maxTokens: 250, period: "total" } });
    // Two firings fit (0 + 100, 100 + 100); every later one stops before its request.
    await eventually("a firing stopped by the budget", async () =>
      (await entriesOf(app, sessionId, "run_outcome")).some(
        (entry) => (entry.outcome as { type: string }).type === "budget_exhausted",
      )
        ? true
        : undefined,
    );
    expect((await app.api("/schedules/capped", { method: "PATCH", body: { paused: true } })).status).toBe(
      200,
    );
    await app.idle(sessionId);
    expect(fake.provider.requests.length).toBe(2);
    const outcomes = (await entriesOf(app, sessionId, "run_outcome")).map(
      (entry) => (entry.outcome as { type: string; message?: string }).type,
    );
    expect(outcomes.slice(0, 2)).toEqual(["finished", "finished"]);
    expect(outcomes.slice(2).every((type) => type === "budget_exhausted")).toBe(true);
    const last = (await entriesOf(app, sessionId, "run_outcome")).at(-1)!.outcome as { message: string };
    expect(last.message).toMatch(/schedule capped's budget/);
    // A message of the session's own (no schedule's) is not the schedule's to cap.
    await app.turn(sessionId, "and you?");
    expect(fake.provider.requests.length).toBe(3);
    const refused = await app.api("/schedules", {
      method: "POST",
      body: {
        cron: "0 7 * * *",
        session_id: sessionId,
        prompt: "p",
        missed: "skip",
        budget: { period: "day" },
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.json<{ detail: string }>().detail).toMatch(/must set "maxTokens", "maxCostUsd" or both/);
  });

  it("still counts the usage of an answer committed before a SIGKILL", { timeout: 60_000 }, async () => {
    let call = 0;
    const app = await fake.daemon({ database }, () =>
      call++ === 0 ? listFiles("call_before_kill") : hang(),
    );
    const sessionId = await app.createSession();
    expect((await putBudget(app, sessionId, { maxTokens: 250 })).status).toBe(200);
    await app.prompt(sessionId, "list the files, then wait");
    // The second request went out: the first answer and its tool's result are committed.
    await eventually("the second request", () => (fake.provider.requests.length >= 2 ? true : undefined));
    await app.kill();
    fake.provider.script = () => text("ok", hundred);
    await app.boot();
    await app.idle(sessionId);
    // Every request but the one cut by the kill was answered, and each answer counts 100.
    const answered = () => fake.provider.requests.length - 1;
    expect(await budgetOf(app, sessionId)).toMatchObject({ used: { tokens: 100 * answered() } });
    await app.turn(sessionId, "and now?");
    await app.turn(sessionId, "and again?");
    // 250 allows two answers of 100 in all (the third would exceed it): had the answer before
    // the kill been forgotten, a third would have been sent.
    expect(answered()).toBe(2);
    expect(await budgetOf(app, sessionId)).toMatchObject({
      used: { tokens: 200 },
      remaining: { tokens: 50 },
    });
    expect((await entriesOf(app, sessionId, "run_outcome")).at(-1)).toMatchObject({
      outcome: { type: "budget_exhausted" },
    });
    const rows = await app.sql<{ tokens: number | string }>(
      "SELECT SUM(tokens) AS tokens FROM budget_usage WHERE session_id = ?",
      [sessionId],
    );
    expect(Number(rows[0]!.tokens)).toBe(200);
  });
});
