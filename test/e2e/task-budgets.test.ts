/**
 * A session budget counts the usage of the `task` children its calls made, so it also stops
 * them: a child checks its ancestors' session budgets before each of its requests, on both
 * backends, reading each ancestor's own budget from its session row (kept with the
 * `budget_changed` entry's commit, and brought in line at load for a row written before that).
 */
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { type DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { useFakeProvider } from "./support/fixture.js";

/** Each request of these scripts reports 90 prompt and 10 output tokens: 100 toward a budget. */
const hundred = { usage: { input: 90, output: 10 } };

/** The parent delegates once; its child lists files five times, then answers; the parent then answers. */
function delegating(request: RecordedRequest) {
  if (request.rawBody.includes("PARENT-DELEGATES")) {
    // The call and its result: the task is over.
    if ((request.rawBody.match(/call_task/g)?.length ?? 0) >= 2) return text("the parent is done", hundred);
    return toolCalls(
      [{ name: "task", args: { agent: "general", prompt: "list the files" }, id: "call_task" }],
      hundred,
    );
  }
  const done = (request.rawBody.match(/call_list_/g)?.length ?? 0) / 2;
  if (done >= 5) return text("the child is done", hundred);
  return toolCalls([{ name: "list_files", args: { path: "." }, id: `call_list_${done}` }], hundred);
}

async function entriesOf(app: DaemonHarness, sessionId: string, kind: string) {
  const rows = await app.sql<{ entry: string }>(
    "SELECT entry FROM transcript WHERE session = ? AND kind = ? ORDER BY position",
    [sessionId, kind],
  );
  return rows.map((row) => JSON.parse(row.entry) as { outcome?: { type: string; message?: string } });
}

async function childOf(app: DaemonHarness, parentId: string): Promise<string> {
  const rows = await app.sql<{ id: string }>("SELECT id FROM sessions WHERE parent_id = ?", [parentId]);
  expect(rows).toHaveLength(1);
  return rows[0]!.id;
}

describe.each(databaseKinds)("task children under their parent's budget ($name)", ({ database }) => {
  const fake = useFakeProvider();

  it("stops a running child before the request that would take its parent's session budget past the limit", async () => {
    const app = await fake.daemon({ database }, delegating);
    const parent = await app.createSession();
    expect(
      (await app.api(`/sessions/${parent}/budget`, { method: "PUT", body: { maxTokens: 250 } })).status,
    ).toBe(200);
    await app.prompt(parent, "PARENT-DELEGATES: list them", uuidv7());
    await app.idle(parent, 30_000);
    const child = await childOf(app, parent);

    // The parent's task call (100), the child's first list (200 in the parent's count); the
    // child's second request (300) would pass 250: never sent, and the parent's next neither.
    expect(fake.provider.requests.length).toBe(2);
    const childEnd = (await entriesOf(app, child, "run_outcome")).at(-1)!;
    expect(childEnd.outcome).toMatchObject({ type: "budget_exhausted" });
    expect(childEnd.outcome!.message).toContain(
      `session ${parent}'s budget (this task's) would be exceeded by the next model request (used 200 of 250 tokens in total)`,
    );
    expect(childEnd.outcome!.message).toContain(`PUT /sessions/${parent}/budget`);
    expect((await entriesOf(app, parent, "run_outcome")).at(-1)!.outcome).toMatchObject({
      type: "budget_exhausted",
    });
    // The child's snapshot shows the budget that binds it: its parent's.
    const view = (await app.api(`/sessions/${child}?tail=0`)).json<{
      budget: { scope: string; limit: { max_tokens: number }; used: { tokens: number } };
    }>().budget;
    expect(view).toMatchObject({ scope: "session", limit: { max_tokens: 250 }, used: { tokens: 200 } });
  });

  it("keeps a session's own budget in its row, and restores it at load for a row written without it", async () => {
    const app = await fake.daemon({ database, env: { SKEIN_INSPECT: "1" } }, () => text("ok", hundred));
    const sessionId = await app.createSession();
    const ownBudget = async () =>
      (
        await app.sql<{ own_budget: string | null }>("SELECT own_budget FROM sessions WHERE id = ?", [
          sessionId,
        ])
      )[0]!.own_budget;
    expect(await ownBudget()).toBeNull();
    await app.api(`/sessions/${sessionId}/budget`, {
      method: "PUT",
      body: { maxTokens: 500, period: "day" },
    });
    expect(JSON.parse((await ownBudget())!)).toEqual({ maxTokens: 500, period: "day" });

    // A row from before the column: the log says 500 a day, the row says nothing.
    await app.sql("UPDATE sessions SET own_budget = NULL WHERE id = ?", [sessionId]);
    await app.api(`/debug/sessions/${sessionId}/restart`, { method: "POST" });
    expect((await app.api(`/sessions/${sessionId}?tail=0`)).status).toBe(200);
    expect(JSON.parse((await ownBudget())!)).toEqual({ maxTokens: 500, period: "day" });

    await app.api(`/sessions/${sessionId}/budget`, { method: "DELETE" });
    expect(await ownBudget()).toBeNull();
  });
});
