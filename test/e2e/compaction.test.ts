/**
 * Context compaction end to end, against the real daemon and the fake provider in each of the
 * four protocols: a manual compaction leaves a `compaction` history entry and a next request
 * that the vendor's rules accept (tool calls paired with their results, reasoning signatures
 * untouched) and that carries the summary and the kept tail; a vendor's "context too long"
 * makes the turn compact and retry once (in pieces when the summary request is too long too);
 * the fill threshold compacts before the request that would pass it; a compacted session
 * compacts again; forks before and after a compaction run; SIGKILL in the middle of a
 * compaction leaves the session as it was; a 200-turn session in a small window stays usable.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { contextOverflowReply, promptTokensOf } from "../support/fake-provider/context-overflow.js";
import { type FakeProtocol, hang } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import {
  compactionProfile,
  compactionScript,
  isSummaryRequest,
  scriptPrompt,
} from "./support/compaction-script.js";
import type { DaemonHarness, HistoryEntry, ProviderProfileConfig } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

const protocols: FakeProtocol[] = ["chat_completions", "responses", "anthropic", "gemini"];

interface Context {
  used_tokens: number;
  estimated: boolean;
  context_window: number;
  fill: number;
  compacting: boolean;
  last_compaction: null | { position: number; before_tokens: number; after_tokens: number };
  last_compaction_error: string | null;
  cost_usd: number | null;
  warnings: string[];
}

interface CompactionEntry extends HistoryEntry {
  compaction?: {
    first_kept_position: number;
    before_tokens: number;
    after_tokens: number;
    trigger: string | null;
  };
}

describe("context compaction", () => {
  const fake = useFakeProvider();

  async function daemon(
    protocol: FakeProtocol,
    extra: Partial<ProviderProfileConfig> = {},
  ): Promise<DaemonHarness> {
    const app = await fake.daemon(
      {
        providers: {
          main: compactionProfile(protocol, fake.provider, { contextWindow: 1_000_000, ...extra }),
        },
      },
      compactionScript(protocol),
    );
    writeFileSync(join(app.workspace, "notes.txt"), `${"the notes say hello. ".repeat(40)}\n`);
    return app;
  }

  /** Prompt and wait; the turn must have completed. */
  async function turn(app: DaemonHarness, id: string, prompt: string): Promise<void> {
    const inputId = uuidv7();
    await app.prompt(id, prompt, inputId);
    await app.idle(id, 30_000);
    const receipt = (await app.api(`/sessions/${id}/inputs/${inputId}`)).json<{ turn: { state: string } }>();
    if (receipt.turn.state !== "completed") {
      throw new Error(
        `turn for ${prompt.slice(0, 30)} ended ${receipt.turn.state}; log:\n${app.readLog().slice(-3000)}`,
      );
    }
  }

  async function context(app: DaemonHarness, id: string): Promise<Context> {
    return (await app.api(`/sessions/${id}?tail=0`)).json<{ context: Context }>().context;
  }

  async function history(app: DaemonHarness, id: string): Promise<CompactionEntry[]> {
    const items: CompactionEntry[] = [];
    let page = (await app.api(`/sessions/${id}/history?after=0&limit=200`)).json<{
      items: CompactionEntry[];
      newer: string | null;
    }>();
    items.push(...page.items);
    while (page.newer !== null) {
      page = (
        await app.api(`/sessions/${id}/history?next=${encodeURIComponent(page.newer)}&limit=200`)
      ).json();
      items.push(...page.items);
    }
    return items;
  }

  async function compactNow(app: DaemonHarness, id: string): Promise<Context> {
    const before = await context(app, id);
    const response = await app.api(`/sessions/${id}/compact`, { method: "POST" });
    expect(response.status, response.text).toBe(202);
    return eventually("the compaction to end", async () => {
      const now = await context(app, id);
      if (now.compacting) return undefined;
      if (
        now.last_compaction?.position === before.last_compaction?.position &&
        now.last_compaction_error === null
      )
        return undefined;
      return now;
    });
  }

  function modelRequests(): RecordedRequest[] {
    return fake.provider.requests.filter((request) => !isSummaryRequest(request));
  }

  describe.each(protocols)("%s", (protocol) => {
    it("after a manual compaction the next request is valid for the vendor and holds the summary and the kept turns", async () => {
      const app = await daemon(protocol);
      const id = await app.createSession();
      for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n));
      const measured = await context(app, id);
      // The provider's count of the last prompt backs the size, and the model's prices give a cost.
      expect(measured.estimated).toBe(false);
      const last = modelRequests().at(-1)!;
      expect(measured.used_tokens).toBeGreaterThanOrEqual(promptTokensOf(last.rawBody));
      expect(measured.fill).toBeCloseTo(measured.used_tokens / 1_000_000, 4);
      const usage = (await app.api(`/sessions/${id}?tail=0`)).json<{
        usage: { prompt_tokens: number; completion_tokens: number; cached_prompt_tokens: number };
      }>().usage;
      const prices = {
        chat_completions: [0.28, 0.42],
        responses: [0.25, 2],
        anthropic: [3, 15],
        gemini: [2, 12],
      }[protocol];
      expect(measured.cost_usd).toBeCloseTo(
        (usage.prompt_tokens * prices[0]! + usage.completion_tokens * prices[1]!) / 1e6,
        5,
      );
      const done = await compactNow(app, id);
      expect(done.last_compaction_error).toBeNull();
      expect(done.estimated).toBe(true);
      expect(done.last_compaction).not.toBeNull();
      expect(done.last_compaction!.after_tokens).toBeLessThan(done.last_compaction!.before_tokens);

      const entries = await history(app, id);
      const marker = entries.find((entry) => entry.kind === "compaction");
      expect(marker?.compaction?.trigger).toBe("manual");
      expect(marker?.content[0]?.text).toMatch(/^Summary \d+:/);
      // The full history stays: the first prompt is still there.
      expect(
        entries.some((entry) => entry.kind === "user" && entry.content[0]?.text === scriptPrompt("tools", 0)),
      ).toBe(true);

      const before = fake.provider.requests.length;
      await turn(app, id, scriptPrompt("tools", 4));
      const next = fake.provider.requests.slice(before).find((request) => !isSummaryRequest(request))!;
      expect(next.rawBody).toContain(marker!.content[0]!.text!);
      expect(next.rawBody).not.toContain(scriptPrompt("tools", 0));
      expect(next.rawBody).toContain(scriptPrompt("tools", 2));
      expect(next.rawBody).toContain(scriptPrompt("chat", 3));
    });

    it("compacts inside a long tool loop between a result and the next request, and every request stays valid", async () => {
      const app = await daemon(protocol, { contextWindow: 5_000, compactThreshold: 0.6 });
      const id = await app.createSession();
      await turn(app, id, scriptPrompt("chat", 0));
      await turn(app, id, scriptPrompt("loop", 1));
      const entries = await history(app, id);
      const markers = entries.filter((entry) => entry.kind === "compaction");
      expect(markers.length).toBeGreaterThan(0);
      expect(markers.every((entry) => entry.compaction?.trigger === "auto")).toBe(true);
      // At least one cut fell inside the turn: its first kept entry is not a user prompt.
      const midTurn = markers.some((marker) =>
        entries.some(
          (entry) => entry.position === marker.compaction!.first_kept_position && entry.kind !== "user",
        ),
      );
      expect(midTurn).toBe(true);
      await turn(app, id, scriptPrompt("tools", 2));
    });

    it("answers the vendor's context-too-long by compacting and retrying the request once", async () => {
      const app = await daemon(protocol);
      const id = await app.createSession();
      for (let n = 0; n < 3; n++) await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n, 30));
      // From here the model takes a little more than the turns a compaction keeps.
      const largest = Math.max(...modelRequests().map((request) => promptTokensOf(request.rawBody)));
      fake.provider.contextWindow = largest + 200;
      let overflowed = 0;
      for (let n = 3; n < 8; n++) {
        const count = fake.provider.requests.length;
        await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n, 30));
        overflowed += fake.provider.requests
          .slice(count)
          .filter((request) => promptTokensOf(request.rawBody) > fake.provider.contextWindow!).length;
      }
      expect(overflowed).toBeGreaterThan(0);
      const triggers = (await history(app, id)).flatMap((entry) =>
        entry.compaction ? [entry.compaction.trigger] : [],
      );
      expect(triggers).toContain("overflow");
    });
  });

  it("retries a turn's request only once: a second context-too-long fails the turn", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt("chat", n, 20));
    const script = fake.provider.script;
    fake.provider.script = (request) =>
      isSummaryRequest(request) ? script(request) : contextOverflowReply("chat_completions", 9_000, 8_000);
    const count = fake.provider.requests.length;
    const inputId = uuidv7();
    await app.prompt(id, scriptPrompt("chat", 4), inputId);
    await app.idle(id, 30_000);
    const receipt = (await app.api(`/sessions/${id}/inputs/${inputId}`)).json<{ turn: { state: string } }>();
    expect(receipt.turn.state).toBe("failed");
    const sent = fake.provider.requests.slice(count);
    expect(sent.filter((request) => !isSummaryRequest(request))).toHaveLength(2);
    expect(sent.filter(isSummaryRequest).length).toBeGreaterThan(0);
    const triggers = (await history(app, id)).flatMap((entry) =>
      entry.compaction ? [entry.compaction.trigger] : [],
    );
    expect(triggers).toEqual(["overflow"]);
  });

  it("compacts in pieces when the summary request itself is too long", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    // The history must outweigh what every request carries anyway (prompt, tool schemas): half
    // the largest request then still holds the kept turns and a summary.
    for (let n = 0; n < 8; n++) await turn(app, id, scriptPrompt("chat", n, 150));
    const largest = Math.max(...modelRequests().map((request) => promptTokensOf(request.rawBody)));
    fake.provider.contextWindow = Math.floor(largest / 2);
    const count = fake.provider.requests.length;
    await turn(app, id, scriptPrompt("chat", 8, 5));
    const summaries = fake.provider.requests.slice(count).filter(isSummaryRequest);
    const accepted = summaries.filter(
      (request) => promptTokensOf(request.rawBody) <= fake.provider.contextWindow!,
    );
    expect(accepted.length).toBeGreaterThan(1);
    // The later pieces carry the summary so far.
    expect(accepted.at(-1)!.rawBody).toContain("summary of the conversation so far");
  });

  it("compacts before the request that would pass the fill threshold, never overflowing", async () => {
    const app = await daemon("chat_completions", { contextWindow: 6_000, compactThreshold: 0.5 });
    fake.provider.contextWindow = 6_000;
    const id = await app.createSession();
    for (let n = 0; n < 14; n++) await turn(app, id, scriptPrompt(n % 3 === 0 ? "tools" : "chat", n, 40));
    const triggers = (await history(app, id)).flatMap((entry) =>
      entry.compaction ? [entry.compaction.trigger] : [],
    );
    expect(triggers.length).toBeGreaterThan(0);
    expect(new Set(triggers)).toEqual(new Set(["auto"]));
    for (const request of modelRequests())
      expect(promptTokensOf(request.rawBody)).toBeLessThanOrEqual(6_000 * 0.5 + 600);
    const now = await context(app, id);
    expect(now.context_window).toBe(6_000);
    expect(now.fill).toBeLessThan(0.6);
  });

  it("compacts a compacted session: the new summary covers the old one, which leaves the context", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt("tools", n));
    await compactNow(app, id);
    const first = (await history(app, id)).find((entry) => entry.kind === "compaction")!.content[0]!.text!;
    for (let n = 4; n < 8; n++) await turn(app, id, scriptPrompt("chat", n));
    const count = fake.provider.requests.length;
    const second = await compactNow(app, id);
    expect(second.last_compaction_error).toBeNull();
    const summaryRequest = fake.provider.requests.slice(count).find(isSummaryRequest)!;
    expect(summaryRequest.rawBody).toContain(first);
    const markers = (await history(app, id)).filter((entry) => entry.kind === "compaction");
    expect(markers).toHaveLength(2);
    const before = fake.provider.requests.length;
    await turn(app, id, scriptPrompt("chat", 8));
    const next = fake.provider.requests.slice(before).find((request) => !isSummaryRequest(request))!;
    expect(next.rawBody).toContain(markers[1]!.content[0]!.text!);
    expect(next.rawBody).not.toContain(first);
  });

  it("forks before and after a compaction, and both forks run", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt(n % 2 === 0 ? "tools" : "chat", n));
    await compactNow(app, id);
    const entries = await history(app, id);
    const early = entries.find(
      (entry) => entry.kind === "user" && entry.content[0]?.text === scriptPrompt("chat", 1),
    )!;
    const marker = entries.find((entry) => entry.kind === "compaction")!;
    for (const [checkpoint, compacted] of [
      [early.checkpoint_id!, false],
      [marker.checkpoint_id!, true],
    ] as const) {
      const fork = uuidv7();
      const created = await app.api(`/sessions/${fork}`, {
        method: "PUT",
        headers: { "if-none-match": "*" },
        body: { kind: "fork", source_session_id: id, checkpoint_id: checkpoint },
      });
      expect(created.status, created.text).toBe(201);
      const before = fake.provider.requests.length;
      await turn(app, fork, scriptPrompt("chat", 10));
      const next = fake.provider.requests.slice(before).find((request) => !isSummaryRequest(request))!;
      expect(next.rawBody.includes(marker.content[0]!.text!)).toBe(compacted);
      expect(next.rawBody.includes(scriptPrompt("tools", 0))).toBe(!compacted);
    }
  });

  it("refuses a compaction while a turn runs (409 session_busy) and when nothing would be summarized (409 nothing_to_compact)", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    const empty = await app.api(`/sessions/${id}/compact`, { method: "POST" });
    expect(empty.status).toBe(409);
    expect(empty.json().code).toBe("nothing_to_compact");
    fake.provider.queue(hang());
    await app.prompt(id, scriptPrompt("chat", 0));
    await fake.provider.waitForRequests(1);
    const busy = await app.api(`/sessions/${id}/compact`, { method: "POST" });
    expect(busy.status).toBe(409);
    expect(busy.json().code).toBe("session_busy");
  });

  it("leaves the session exactly as before when the daemon is SIGKILLed mid-compaction, and works after the restart", async () => {
    const app = await daemon("chat_completions");
    const id = await app.createSession();
    for (let n = 0; n < 4; n++) await turn(app, id, scriptPrompt("tools", n));
    const head = (await app.api(`/sessions/${id}/verify`)).json<{ head: unknown }>();
    const script = fake.provider.script;
    fake.provider.script = (request) => (isSummaryRequest(request) ? hang() : script(request));
    const count = fake.provider.requests.length;
    expect((await app.api(`/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    await eventually("the summary request", () =>
      fake.provider.requests.slice(count).some(isSummaryRequest) ? true : undefined,
    );
    await app.kill();
    await app.boot();
    const verified = (await app.api(`/sessions/${id}/verify`)).json<{ head: unknown; valid?: boolean }>();
    expect(verified).toEqual(head);
    expect((await history(app, id)).some((entry) => entry.kind === "compaction")).toBe(false);
    fake.provider.script = script;
    await turn(app, id, scriptPrompt("chat", 5));
    const done = await compactNow(app, id);
    expect(done.last_compaction).not.toBeNull();
    await turn(app, id, scriptPrompt("tools", 6));
  });

  it("keeps a 200-turn session usable in a small context window", { timeout: 120_000 }, async () => {
    const app = await daemon("chat_completions", { contextWindow: 8_000, compactThreshold: 0.8 });
    fake.provider.contextWindow = 8_000;
    const id = await app.createSession();
    for (let n = 0; n < 200; n++) await turn(app, id, scriptPrompt(n % 5 === 0 ? "tools" : "chat", n, 5));
    const markers = (await history(app, id)).filter((entry) => entry.kind === "compaction");
    expect(markers.length).toBeGreaterThan(2);
    for (const request of fake.provider.requests)
      expect(promptTokensOf(request.rawBody)).toBeLessThanOrEqual(8_000);
    const now = await context(app, id);
    expect(now.fill).toBeLessThan(0.8);
    expect((await app.api(`/sessions/${id}/verify`)).status).toBe(200);
  });
});
