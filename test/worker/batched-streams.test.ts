/**
 * A client that hands over its events in batches (`LlmClient.streamBatches`, one batch per
 * network read) runs the loop exactly like one that streams them one by one: same observer
 * events, same history, same failures, and a cancel inside a batch stops it at that event.
 */
import { describe, expect, it } from "vitest";
import {
  errorEvent,
  type StreamEvent,
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  usageEvent,
} from "../../src/model/events.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import type { LlmClient } from "../../src/model/llm-client.js";
import { type LockedWorker, Worker, WorkerError } from "../../src/worker/index.js";

/** A client serving `batches` through `streamBatches`, or one by one through `stream` alone. */
function scriptedClient(batches: StreamEvent[][], batched: boolean): LlmClient & { streamed: number } {
  const client = {
    provider: "scripted",
    streamed: 0,
    async *stream(): AsyncGenerator<StreamEvent> {
      for (const batch of batches) {
        for (const event of batch) {
          client.streamed += 1;
          yield event;
        }
      }
    },
    async *streamBatches(): AsyncGenerator<readonly StreamEvent[]> {
      for (const batch of batches) {
        client.streamed += batch.length;
        yield batch;
      }
    },
  };
  if (!batched) return { provider: client.provider, stream: client.stream, streamed: 0 };
  return client;
}

const answer: StreamEvent[][] = [
  [textBlockStart(0), textDelta(0, "Hel"), textDelta(0, "lo")],
  [textDelta(0, ", "), textDelta(0, "world"), usageEvent(3, 4)],
  [textBlockStop(0, "end_turn"), statusEvent("completed", "end_turn")],
];

async function runWith(
  batches: StreamEvent[][],
  batched: boolean,
  onEvent: (event: StreamEvent, locked: () => LockedWorker) => void = () => undefined,
): Promise<{ seen: StreamEvent[]; outcome: unknown; locked: LockedWorker }> {
  const seen: StreamEvent[] = [];
  let locked: LockedWorker | undefined;
  const worker = new Worker(scriptedClient(batches, batched), {
    observer: {
      onEvent: (event) => {
        seen.push(event);
        onEvent(event, () => locked!);
      },
    },
  });
  locked = worker.lock();
  const outcome = await locked.run("Hi").catch((error: unknown) => error);
  return { seen, outcome, locked };
}

describe("batched streams", () => {
  it("tell the observer every event and commit the same answer as a one-by-one stream", async () => {
    const batched = await runWith(answer, true);
    const single = await runWith(answer, false);
    expect(batched.outcome).toBe("finished");
    expect(batched.seen).toEqual(answer.flat());
    expect(batched.seen).toEqual(single.seen);
    expect(batched.locked.history).toEqual([userMessage("Hi"), assistantMessage("Hello, world")]);
    expect(batched.locked.history).toEqual(single.locked.history);
  });

  it("stop at the event a cancel arrived on, in the middle of a batch", async () => {
    const cancelAtWorld = (event: StreamEvent, locked: () => LockedWorker) => {
      if (event.type === "block_delta" && event.delta.type === "text" && event.delta.text === "world")
        locked().cancel("enough");
    };
    const batched = await runWith(answer, true, cancelAtWorld);
    const single = await runWith(answer, false, cancelAtWorld);
    expect(batched.outcome).toBeInstanceOf(WorkerError);
    expect(batched.outcome).toMatchObject({ kind: "cancelled", reason: "enough" });
    expect(batched.seen.at(-1)).toEqual(textDelta(0, "world"));
    expect(batched.seen).toEqual(single.seen);
    expect(batched.locked.history).toEqual([userMessage("Hi")]);
  });

  it("fail at an error event inside a batch, handling nothing after it", async () => {
    const failing: StreamEvent[][] = [
      [textBlockStart(0), textDelta(0, "Hel"), errorEvent("overloaded", "busy"), textDelta(0, "lo")],
    ];
    const batched = await runWith(failing, true);
    const single = await runWith(failing, false);
    expect(batched.outcome).toMatchObject({ kind: "client", message: "Client error: overloaded" });
    expect(batched.seen).toEqual(failing[0]!.slice(0, 3));
    expect(batched.seen).toEqual(single.seen);
    expect(batched.locked.history).toEqual([userMessage("Hi")]);
  });
});
