/**
 * A turn's usage reaches the session's row with its end; a turn a SIGKILL cut short never ends,
 * so its recovery must add what its committed answers had used. The row's totals then agree with
 * the budget's count (which counts each answer as it is committed) and with what was spent.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { databaseKinds } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

interface UsageView {
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    cached_prompt_tokens: number;
    total_tokens: number;
  };
  budget: { used: { tokens: number } } | null;
}

describe.each(databaseKinds)("the usage of a turn a crash cut short ($name)", ({ database }) => {
  const fake = useFakeProvider();

  it("is added to the session's totals at recovery: they count every request the budget counted", async () => {
    const app = await fake.daemon({ database });
    const command = "echo started >> effects.txt; sleep 30";
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command }, id: "call_sleep" }], {
        usage: { input: 100, output: 7, cached: 40 },
      }),
    );
    fake.provider.script = () => text("checked", { usage: { input: 200, output: 11 } });
    const sessionId = await app.createSession();
    // A budget far above what the test uses, so the snapshot shows what budgets counted.
    const budget = await app.api(`/sessions/${sessionId}/budget`, {
      method: "PUT",
      body: { maxTokens: 1_000_000 },
    });
    expect(budget.status).toBe(200);
    await app.prompt(sessionId, "record that you started, then wait");
    const effects = join(app.workspace, "effects.txt");
    await eventually("the command to start", () => (existsSync(effects) ? true : undefined));

    await app.kill();
    await app.boot();
    await app.idle(sessionId);

    const view = (await app.api(`/sessions/${sessionId}?tail=0`)).json<UsageView>();
    expect(fake.provider.requests).toHaveLength(2);
    expect(view.usage).toEqual({
      prompt_tokens: 300,
      completion_tokens: 18,
      cached_prompt_tokens: 40,
      total_tokens: 318,
    });
    expect(view.budget?.used.tokens).toBe(318);
    // The session list's summary reads the same row.
    const list = (await app.api("/sessions?limit=10")).json<{
      items: Array<{ id: string; usage: UsageView["usage"] }>;
    }>();
    expect(list.items.find((item) => item.id === sessionId)?.usage.total_tokens).toBe(318);
  });
});
