/**
 * A turn's usage is stored with its end and streamed per model request, so a client that joins
 * while a turn runs (a page opened mid-answer, `skein attach`, a reconnect whose replay is gone)
 * must find the requests already streamed in its snapshot: its snapshot's usage plus the `usage`
 * events after its cursor is what the turn's end stores, never less and never twice, wherever
 * in the turn it joins.
 */
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeUsage, text, toolCalls } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { DaemonHarness } from "./support/daemon-harness.js";
import { profileFor } from "./support/fixture.js";
import { eventsOf, type SseConnection, type StreamEvent } from "./support/sse-client.js";

interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_prompt_tokens: number;
  total_tokens: number;
}

/** A turn of `rounds.length` tool rounds (each request reporting its usage), then a slow answer reporting `answer`. */
function turnOf(rounds: readonly FakeUsage[], answer: FakeUsage) {
  return (request: RecordedRequest) => {
    const round = request.rawBody.match(/call_round_/g)?.length ?? 0;
    // Each finished round's call id shows twice in the next request: the call and its result.
    const done = round / 2;
    if (done < rounds.length)
      return toolCalls([{ name: "list_files", args: { path: "." }, id: `call_round_${done}` }], {
        usage: rounds[done]!,
      });
    const pieces = Array.from({ length: 10 }, (_, i) => `piece${i} `);
    return text(pieces, { usage: answer, delivery: { delayMs: 60 } });
  };
}

function sum(a: Usage, b: Usage): Usage {
  return {
    prompt_tokens: a.prompt_tokens + b.prompt_tokens,
    completion_tokens: a.completion_tokens + b.completion_tokens,
    cached_prompt_tokens: a.cached_prompt_tokens + b.cached_prompt_tokens,
    total_tokens: a.total_tokens + b.total_tokens,
  };
}

/** What a client that attached with `stream` counts by the turn's end: its snapshot's usage plus every `usage` event after it. */
async function countedByTurnEnd(stream: SseConnection): Promise<Usage> {
  const first = await stream.next();
  let counted = first.batch.snapshot!.usage as Usage;
  const events: StreamEvent[] = [...first.batch.events];
  if (!events.some((event) => event.type === "turn_completed"))
    events.push(...eventsOf(await stream.readUntil((event) => event.type === "turn_completed")));
  for (const event of events)
    if (event.type === "usage") counted = sum(counted, event.data as unknown as Usage);
  return counted;
}

async function usageOf(app: DaemonHarness, sessionId: string): Promise<Usage & { phase: string }> {
  const snapshot = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{
    usage: Usage;
    status: { phase: string };
  }>();
  return { ...snapshot.usage, phase: snapshot.status.phase };
}

describe("the usage in a snapshot taken while a turn runs", () => {
  const fake = withFakeProvider();
  let app: DaemonHarness;

  beforeAll(async () => {
    app = await DaemonHarness.start({ providers: profileFor(fake()) });
  });

  afterAll(async () => {
    await app?.close();
  });

  it("counts the requests already streamed, so a client that joins mid-turn ends with the stored totals", async () => {
    fake().script = turnOf([{ input: 100, output: 7 }], { input: 200, output: 11 });
    const sessionId = await app.createSession();
    const watching = await app.openStream(sessionId);
    await app.prompt(sessionId, "list, then answer");
    // The first request's usage has been streamed; the second request is answering.
    await watching.readUntil((event) => event.type === "usage");
    expect(await usageOf(app, sessionId)).toEqual({
      prompt_tokens: 100,
      completion_tokens: 7,
      cached_prompt_tokens: 0,
      total_tokens: 107,
      phase: "running",
    });
    const joined = await app.openStream(sessionId, { tail: 0 });
    const counted = await countedByTurnEnd(joined);
    const { phase: _, ...stored } = await usageOf(app, sessionId);
    expect(stored.total_tokens).toBe(107 + 211);
    expect(counted).toEqual(stored);
    joined.close();
    watching.close();
  });

  it("adds up to the stored totals for a client joining after any number of a turn's requests, over turns of any usage", async () => {
    const usage = fc.record({
      input: fc.integer({ min: 1_000, max: 50_000 }),
      output: fc.integer({ min: 1, max: 900 }),
      cached: fc.integer({ min: 0, max: 1_000 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(usage, { minLength: 1, maxLength: 3 }),
        usage,
        fc.nat(),
        async (rounds, answer, joinAfter) => {
          fake().script = turnOf(rounds, answer);
          const sessionId = await app.createSession();
          const watching = await app.openStream(sessionId);
          await app.prompt(sessionId, "rounds, then answer");
          // Join once this many of the turn's requests have reported their usage (0: at once).
          const seen = joinAfter % (rounds.length + 1);
          for (let i = 0; i < seen; i++) await watching.readUntil((event) => event.type === "usage");
          const joined = await app.openStream(sessionId, { tail: 0 });
          const counted = await countedByTurnEnd(joined);
          const { phase, ...stored } = await usageOf(app, sessionId);
          joined.close();
          watching.close();
          expect(phase).toBe("idle");
          expect(counted).toEqual(stored);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
