/**
 * A compaction's summary requests are model requests like any other: the session's totals count
 * them, and so must its budgets (each compaction entry carries its requests' usage, recorded in
 * the same commit). Manual compactions and those a turn makes before a request or after a
 * "context too long" alike; the budget's count then equals the session's own totals. And they
 * are checked first: a budget that refuses a request refuses a compaction's summary requests.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import {
  compactionProfile,
  compactionScript,
  isSummaryRequest,
  scriptPrompt,
} from "./support/compaction-script.js";
import type { DaemonHarness, ProviderProfileConfig } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface Snapshot {
  usage: { prompt_tokens: number; completion_tokens: number };
  budget: { used: { tokens: number; cost_usd: number } } | null;
  context: {
    compacting: boolean;
    last_compaction: { position: number } | null;
    last_compaction_error: string | null;
  };
  status: { phase: string };
}

describe("budgets and compaction", () => {
  const fake = useFakeProvider();

  async function sessionWithBudget(
    extra: Partial<ProviderProfileConfig> = {},
  ): Promise<{ app: DaemonHarness; id: string }> {
    const app = await fake.daemon(
      {
        providers: {
          main: compactionProfile("chat_completions", fake.provider, { contextWindow: 1_000_000, ...extra }),
        },
      },
      compactionScript("chat_completions"),
    );
    writeFileSync(join(app.workspace, "notes.txt"), `${"the notes say hello. ".repeat(40)}\n`);
    const id = await app.createSession();
    // Far above what the test spends: the snapshot then shows what the budget counted.
    const budget = await app.api(`/sessions/${id}/budget`, {
      method: "PUT",
      body: { maxTokens: 1_000_000_000 },
    });
    expect(budget.status).toBe(200);
    return { app, id };
  }

  async function snapshot(app: DaemonHarness, id: string): Promise<Snapshot> {
    return (await app.api(`/sessions/${id}?tail=0`)).json<Snapshot>();
  }

  async function turn(app: DaemonHarness, id: string, prompt: string): Promise<void> {
    await app.prompt(id, prompt);
    await app.idle(id, 30_000);
  }

  /** What the session's own totals say it used, in a budget's terms (whole prompt plus output). */
  const spent = (now: Snapshot): number => now.usage.prompt_tokens + now.usage.completion_tokens;

  it("counts a manual compaction's summary requests toward the session's budget", async () => {
    const { app, id } = await sessionWithBudget();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n));
    const before = await snapshot(app, id);
    expect(before.budget?.used.tokens).toBe(spent(before));

    // A client following the stream counts the compaction's usage from its `usage` event.
    const stream = await app.openStream(id, { tail: 0 });
    const first = await stream.next();
    const started = await app.api(`/sessions/${id}/compact`, { method: "POST" });
    expect(started.status).toBe(202);
    const events = [
      ...first.batch.events,
      ...eventsOf(await stream.readUntil((event) => event.type === "compaction_completed")),
    ];
    stream.close();
    const after = await eventually("the compaction to be written", async () => {
      const now = await snapshot(app, id);
      return now.context.last_compaction === null || now.context.compacting ? undefined : now;
    });
    expect(after.context.last_compaction_error).toBeNull();
    const usageEvents = events.filter((event) => event.type === "usage");
    expect(usageEvents).toHaveLength(1);
    expect(usageEvents[0]!.data).toMatchObject({ run_id: null });
    const counted = (first.batch.snapshot!.usage as { total_tokens: number }).total_tokens;
    expect(counted + (usageEvents[0]!.data.total_tokens as number)).toBe(
      (await app.api(`/sessions/${id}?tail=0`)).json<{ usage: { total_tokens: number } }>().usage
        .total_tokens,
    );
    expect(spent(after)).toBeGreaterThan(spent(before));
    expect(after.budget?.used.tokens).toBe(spent(after));
    expect(after.budget?.used.cost_usd).toBeGreaterThan(before.budget!.used.cost_usd);
  });

  it("counts the compactions a turn makes before its requests toward the session's budget", async () => {
    const { app, id } = await sessionWithBudget({ contextWindow: 5_000, compactThreshold: 0.6 });
    await turn(app, id, scriptPrompt("chat", 0));
    await turn(app, id, scriptPrompt("loop", 1));
    const now = await snapshot(app, id);
    expect(now.context.last_compaction).not.toBeNull();
    expect(now.budget?.used.tokens).toBe(spent(now));
  });

  /** Spend up to `budget`: the session's own budget becomes exactly what it used. */
  async function exhaust(app: DaemonHarness, id: string): Promise<void> {
    const used = spent(await snapshot(app, id));
    const put = await app.api(`/sessions/${id}/budget`, { method: "PUT", body: { maxTokens: used } });
    expect(put.status).toBe(200);
  }

  it("refuses a manual compaction with 409 budget_exhausted when a budget has nothing left, and asks no model", async () => {
    const { app, id } = await sessionWithBudget();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n));
    await exhaust(app, id);
    const requests = fake.provider.requests.length;
    const refused = await app.api(`/sessions/${id}/compact`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect(refused.json()).toMatchObject({ code: "budget_exhausted" });
    expect(refused.json<{ detail: string }>().detail).toMatch(/the session's budget is used up/);
    expect(fake.provider.requests.length).toBe(requests);
    expect((await snapshot(app, id)).context.last_compaction).toBeNull();
  });

  it("ends a turn budget_exhausted without a summary request when its compaction is due and a budget has nothing left", async () => {
    const app = await fake.daemon(
      {
        providers: {
          wide: compactionProfile("chat_completions", fake.provider, { contextWindow: 1_000_000 }),
          narrow: compactionProfile("chat_completions", fake.provider, {
            contextWindow: 5_000,
            compactThreshold: 0.6,
          }),
        },
      },
      compactionScript("chat_completions"),
    );
    const id = await app.createSession();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt("chat", n, 150));
    await exhaust(app, id);
    // In the narrow window the context is past the threshold: the next request is due a compaction.
    const patched = await app.api(`/sessions/${id}`, {
      method: "PATCH",
      body: { provider_profile: "narrow" },
    });
    expect(patched.status).toBe(200);
    const requests = fake.provider.requests.length;
    await turn(app, id, scriptPrompt("chat", 4));
    expect(fake.provider.requests.slice(requests).filter(isSummaryRequest)).toEqual([]);
    expect(fake.provider.requests.length).toBe(requests);
    const now = await snapshot(app, id);
    expect(now.context.last_compaction).toBeNull();
    const rows = await app.sql<{ kind: string; entry: string }>(
      "SELECT kind, entry FROM transcript WHERE session = ? AND kind IN ('compaction', 'run_outcome') ORDER BY position",
      [id],
    );
    expect(rows.map((row) => row.kind)).not.toContain("compaction");
    expect(JSON.parse(rows.at(-1)!.entry)).toMatchObject({ outcome: { type: "budget_exhausted" } });
  });

  it("does not retry a failed compaction before each request of a turn: its summary requests are spent", async () => {
    const { app, id } = await sessionWithBudget({ contextWindow: 5_000, compactThreshold: 0.6 });
    // Summaries longer than what they replace: every compaction fails ("would not make the
    // context smaller") after its summary request was made.
    const script = compactionScript("chat_completions");
    fake.provider.script = (request) =>
      isSummaryRequest(request) ? text(`Summary: ${"the notes say hello. ".repeat(2_000)}`) : script(request);
    await turn(app, id, scriptPrompt("chat", 0));
    const before = fake.provider.requests.length;
    await turn(app, id, scriptPrompt("loop", 1));
    const requests = fake.provider.requests.slice(before);
    // The tool loop's later requests are all past the threshold: one summary attempt, not one each.
    expect(requests.filter((request) => !isSummaryRequest(request)).length).toBeGreaterThan(3);
    expect(requests.filter(isSummaryRequest)).toHaveLength(1);
    const now = await snapshot(app, id);
    expect(now.context.last_compaction).toBeNull();
    expect(now.context.last_compaction_error).toMatch(/would not make the context smaller/);
    expect(now.status.phase).toBe("idle");
  });
});
