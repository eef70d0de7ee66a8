/**
 * A turn's usage is stored with its end and streamed per model request, so a client that joins
 * while a turn runs (a page opened mid-answer, `skein attach`, a reconnect whose replay is gone)
 * must find the requests already streamed in its snapshot: its snapshot's usage plus the `usage`
 * events after its cursor is what the turn's end stores, never less.
 */
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
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

/** The first request lists files (100 + 7 tokens); the second answers slowly (200 + 11). */
function listThenAnswerSlowly(request: { rawBody: string }) {
  if (!request.rawBody.includes("call_list"))
    return toolCalls([{ name: "list_files", args: { path: "." }, id: "call_list" }], {
      usage: { input: 100, output: 7 },
    });
  const pieces = Array.from({ length: 12 }, (_, i) => `piece${i} `);
  return text(pieces, { usage: { input: 200, output: 11 }, delivery: { delayMs: 100 } });
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

describe("the usage in a snapshot taken while a turn runs", () => {
  const fake = withFakeProvider({ script: listThenAnswerSlowly });

  it("counts the requests already streamed, so a client that joins mid-turn ends with the stored totals", async () => {
    const app = await DaemonHarness.start({ providers: profileFor(fake()) });
    try {
      const sessionId = await app.createSession();
      const watching = await app.openStream(sessionId);
      await app.prompt(sessionId, "list, then answer");
      // The first request's usage has been streamed; the second request is answering.
      await watching.readUntil((event) => event.type === "usage");
      const snapshot = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{
        usage: Usage;
        status: { phase: string };
      }>();
      expect(snapshot.status.phase).toBe("running");
      expect(snapshot.usage).toEqual({
        prompt_tokens: 100,
        completion_tokens: 7,
        cached_prompt_tokens: 0,
        total_tokens: 107,
      });

      const joined = await app.openStream(sessionId, { tail: 0 });
      const counted = await countedByTurnEnd(joined);
      const stored = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{ usage: Usage }>().usage;
      expect(stored.total_tokens).toBe(107 + 211);
      expect(counted).toEqual(stored);
      joined.close();
      watching.close();
    } finally {
      await app.close();
    }
  });
});
