/**
 * An answer interrupted while it streams (issue 33): what had streamed is logged with the turn's
 * end as an answer marked interrupted, so history pages and snapshots show it (marked), the chain
 * verifies, and the next request sends its text back as an assistant message, for Chat
 * Completions and Anthropic (whose unsigned thinking is left out).
 */
import { describe, expect, it } from "vitest";
import { deliver, stream, text } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { chatAndClaudeProfiles, eventually, useFakeProvider } from "./support/fixture.js";
import { eventsOf } from "./support/sse-client.js";

interface Entry {
  kind: string;
  content: { text?: string }[];
  interrupted?: true;
}

interface Snapshot {
  status: { phase: string; run_id: string | null };
  input_order: number;
  history: { items: Entry[] };
}

interface WireMessage {
  role: string;
  content: unknown;
}

function messages(request: RecordedRequest | undefined): WireMessage[] {
  return ((request?.body ?? {}) as { messages?: WireMessage[] }).messages ?? [];
}

const entryText = (entry: Entry | undefined): string =>
  (entry?.content ?? []).map((part) => part.text).join("");

describe("an answer interrupted mid-stream", () => {
  const fake = useFakeProvider();

  async function daemon(): Promise<DaemonHarness> {
    return fake.daemon({ providers: chatAndClaudeProfiles(fake.provider) });
  }

  /** Interrupts a turn whose answer (thinking, then many words) is streaming; the text streamed. */
  async function interruptMidAnswer(app: DaemonHarness, id: string): Promise<string> {
    fake.provider.script = () =>
      deliver(
        stream([
          { type: "reasoning", deltas: ["I should ", "answer."], signature: "sig-1" },
          { type: "text_repeat", count: 400, text: "word " },
        ]),
        { delayMs: 10 },
      );
    const events = await app.openStream(id);
    await events.next();
    await app.prompt(id, "talk for a while");
    await events.readUntil((event) => event.type === "text");
    const running = await eventually("a running turn", async () => {
      const current = (await app.api(`/sessions/${id}?tail=0`)).json<Snapshot>();
      return current.status.run_id === null ? undefined : current;
    });
    const interrupted = await app.api(`/sessions/${id}/interrupt`, {
      method: "POST",
      body: { run_id: running.status.run_id, through_input_order: running.input_order },
    });
    expect(interrupted.json()).toMatchObject({ state: "requested" });
    const frames = await events.readUntil((event) => event.type === "turn_completed");
    events.close();
    const ended = eventsOf(frames).find((event) => event.type === "turn_completed");
    expect(ended?.data.state).toBe("interrupted");
    await app.idle(id);
    const streamed = eventsOf(events.frames)
      .filter((event) => event.type === "text")
      .map((event) => String(event.data.text))
      .join("");
    expect(streamed.length).toBeGreaterThan(0);
    return streamed;
  }

  it.each([
    ["chat", "chat_completions"],
    ["claude", "anthropic"],
  ])("keeps what streamed, marked interrupted, and sends it back next turn (%s)", async (profile) => {
    const app = await daemon();
    const id = await app.createSession({ provider_profile: profile });
    const streamed = await interruptMidAnswer(app, id);

    // The history page and the snapshot hold the streamed thinking and text, marked.
    const page = (await app.history(id)).items as unknown as Entry[];
    expect(page.map((entry) => [entry.kind, entry.interrupted ?? null])).toEqual([
      ["user", null],
      ["thinking", true],
      ["assistant", true],
    ]);
    expect(entryText(page[1])).toBe("I should answer.");
    expect(entryText(page[2])).toBe(streamed);
    const snapshot = (await app.api(`/sessions/${id}`)).json<Snapshot>();
    expect(snapshot.history.items.slice(1).map((entry) => entry.interrupted)).toEqual([true, true]);
    expect((await app.api(`/sessions/${id}/verify`)).json()).toMatchObject({ status: "verified" });

    // The next request carries the partial answer as an assistant message (no unsigned thinking).
    fake.provider.script = () => text("fresh");
    await app.turn(id, "again");
    const sent = messages(fake.provider.lastRequest).filter((message) => message.role !== "system");
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user"]);
    if (profile === "chat") {
      expect(sent[1]?.content).toBe(streamed);
    } else {
      expect(sent[1]?.content).toEqual([{ type: "text", text: streamed }]);
    }
    // The completed answer after it is not marked.
    const after = (await app.history(id)).items as unknown as Entry[];
    expect(after.at(-1)).toMatchObject({ kind: "assistant" });
    expect(after.at(-1)?.interrupted).toBeUndefined();
  });
});
