/**
 * Sessions with multi-MiB entries stay watchable: every stream frame and every JSON answer of
 * the real daemon stays within 1 MiB, large content parts are sent truncated with a ref whose
 * slices give back exactly the original text, and history pages cut by bytes still visit every
 * entry once. Runs the daemon process against the fake provider over loopback HTTP.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ContentSlice, TruncationMarker } from "../../src/api/history.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import type { DaemonHarness, HistoryEntry, HistoryPage } from "./support/daemon-harness.js";
import { startFixture } from "./support/fixture.js";
import { checkContiguous, eventsOf, type SseConnection } from "./support/sse-client.js";

const MiB = 1024 * 1024;
/** The documented bound of every frame and every JSON answer. */
const bound = MiB;

/** A truncated content part as the daemon sends it. */
type TruncatedPart = { kind: string } & TruncationMarker;

/** The largest frame and answer seen across this file. */
const largest = { frame: 0, answer: 0 };

/** `bytes` of varied text: ASCII, escapes, two- to four-byte characters and newlines. */
function variedText(bytes: number, seed: string): string {
  const unit = `${seed} "quoted" back\\slash tab\t é ü 中文 😀 ok\n`;
  const repeats = Math.ceil(bytes / Buffer.byteLength(unit));
  const whole = unit.repeat(repeats);
  // Cut on a code point boundary at or below `bytes`.
  let cut = Buffer.from(whole).subarray(0, bytes).toString("utf8");
  if (cut.endsWith("\uFFFD")) cut = cut.slice(0, -1);
  return cut;
}

describe("large entries", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    ({ provider, app } = await startFixture());
  });

  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
    provider.reset();
  });

  afterAll(async () => {
    console.info(
      `large entries: largest stream frame ${largest.frame} bytes, largest JSON answer ${largest.answer} bytes`,
    );
    await app?.close();
    await provider?.close();
  });

  /** A GET answer as JSON, its size checked against the bound. */
  async function getJson<T>(path: string): Promise<T> {
    const response = await app.api(path);
    expect(response.status, `${path}: ${response.text.slice(0, 300)}`).toBe(200);
    const size = Buffer.byteLength(response.text, "utf8");
    largest.answer = Math.max(largest.answer, size);
    expect(size, `answer of ${path}`).toBeLessThanOrEqual(bound);
    return response.json<T>();
  }

  async function open(sessionId: string): Promise<SseConnection> {
    const stream = await app.openStream(sessionId);
    streams.push(stream);
    return stream;
  }

  function checkFrames(stream: SseConnection): void {
    for (const frame of stream.frames) {
      largest.frame = Math.max(largest.frame, frame.bytes);
      expect(frame.bytes).toBeLessThanOrEqual(bound);
    }
  }

  /** The whole content of a truncated part, read slice by slice through its ref. */
  async function fetchPart(part: TruncatedPart): Promise<string> {
    let content = "";
    let offset: number | null = 0;
    let slices = 0;
    while (offset !== null) {
      const slice: ContentSlice = await getJson<ContentSlice>(`${part.ref}&offset=${offset}`);
      expect(slice.offset).toBe(offset);
      expect(slice.bytes).toBe(part.bytes);
      content += slice.text;
      offset = slice.next_offset;
      slices += 1;
      expect(slices).toBeLessThan(1000);
    }
    return content;
  }

  function truncatedPart(entry: HistoryEntry): TruncatedPart {
    const part = entry.content[0] as unknown as TruncatedPart;
    expect(part.truncated).toBe(true);
    return part;
  }

  it("attaches with the default tail to a session holding two 4 MiB inputs: a status line, a reset and its snapshot", async () => {
    provider.script = () => text("noted");
    const session = await app.createSession();
    const first = "a".repeat(4 * MiB);
    const second = variedText(4 * MiB, "second");
    await app.prompt(session, first);
    await app.prompt(session, second);
    await app.idle(session, 60_000);

    const stream = await open(session);
    expect(stream.response.statusCode).toBe(200);
    const frame = await stream.next();
    checkFrames(stream);
    expect(frame.batch.events[0]?.type).toBe("reset");
    const history = frame.batch.snapshot?.history as HistoryPage & { byte_limited: boolean };
    const users = history.items.filter((entry) => entry.kind === "user");
    expect(users.map((entry) => truncatedPart(entry).bytes)).toEqual([
      4 * MiB,
      Buffer.byteLength(second, "utf8"),
    ]);
    expect(history.items.filter((entry) => entry.kind === "assistant")).toHaveLength(2);
    expect(await fetchPart(truncatedPart(users[1]!))).toBe(second);

    const snapshot = await getJson<{ history: HistoryPage }>(`/sessions/${session}`);
    expect(snapshot.history.items.map((entry) => entry.id)).toEqual(history.items.map((entry) => entry.id));
  }, 120_000);

  it("keeps a snapshot within 1 MiB when it echoes a creation request near the body limit and a policy repeated in it", async () => {
    provider.script = () => text("noted");
    // The policy shows twice in a snapshot (approval_policy, and in creation.submitted).
    const rules = Array.from({ length: 7 }, (_, i) => ({
      tool: `tool_${i}`,
      pattern: `${"p".repeat(4000)}*`,
      action: "ask",
    }));
    const shell = { kind: "new", workspace: app.workspace, approval_policy: { default: "ask", rules } };
    const body = { ...shell, system_prompt: "s".repeat(65_000 - JSON.stringify(shell).length - 20) };
    const session = uuidv7();
    const created = await app.api(`/sessions/${session}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body,
    });
    expect(created.status, created.text.slice(0, 300)).toBe(201);
    // Enough 30 KB prompts to fill a snapshot's history budget; each turn is a prompt and an answer.
    for (let turn = 0; turn < 33; turn++) await app.turn(session, `${turn} ${"q".repeat(30_000)}`);

    const snapshot = await getJson<{ history: HistoryPage & { byte_limited: boolean }; creation: unknown }>(
      `/sessions/${session}`,
    );
    expect(snapshot.history.byte_limited).toBe(true);
    expect(snapshot.creation).toEqual({ kind: "new", submitted: body });
    const stream = await open(session);
    await stream.next();
    checkFrames(stream);
  }, 120_000);

  it("streams a 10 MB assistant message to a reading watcher that keeps its connection, announced truncated with a ref to the exact text", async () => {
    const deltas: string[] = [];
    for (let i = 0; i < 160; i++) deltas.push(variedText(62_500, `delta ${i}`));
    const answer = deltas.join("");
    expect(Buffer.byteLength(answer, "utf8")).toBeGreaterThan(9_900_000);
    // Paced, so the watcher is not starved by the fake provider sharing this process; still
    // about 10 MB a second, far faster than any model writes.
    provider.script = () => text(deltas, { delivery: { delayMs: 5 } });
    const session = await app.createSession();
    const stream = await open(session);
    const reset = await stream.next();
    expect(reset.batch.events[0]?.type).toBe("reset");

    const receipt = await app.prompt(session, "write a lot");
    const frames = await stream.readUntil((event) => event.type === "turn_completed", 90_000);
    expect(stream.closed).toBe(false);
    checkContiguous(frames, reset.batch.cursor);
    checkFrames(stream);
    const events = eventsOf(frames);
    const streamed = events
      .filter((event) => event.type === "text")
      .map((event) => event.data.text as string)
      .join("");
    expect(streamed === answer, "the deltas add up to the whole answer").toBe(true);
    const message = events
      .filter((event) => event.type === "message")
      .map((event) => event.data.entry as HistoryEntry)
      .find((entry) => entry.kind === "assistant");
    expect(message).toBeDefined();
    const part = truncatedPart(message!);
    expect(part.bytes).toBe(Buffer.byteLength(answer, "utf8"));
    expect(part.ref).toBe(`/sessions/${session}/entries/${message!.id}/content?part=0`);
    const fetched = await fetchPart(part);
    expect(fetched.length).toBe(answer.length);
    expect(fetched === answer, "the fetched content is the answer").toBe(true);
    const ended = events.find((event) => event.type === "turn_completed");
    expect(ended?.data.input_ids).toEqual([receipt.id]);
  }, 120_000);

  it("announces a tool call with 600 KB of arguments cut in its tool events, and serves them whole as JSON text", async () => {
    const args = { path: "big.txt", content: variedText(600_000, "file") };
    provider.queue(toolCalls([{ name: "write_file", args, pieces: 20 }]), text("written"));
    const session = await app.createSession();
    const stream = await open(session);
    await stream.next();
    await app.prompt(session, "write the file");
    const frames = await stream.readUntil((event) => event.type === "turn_completed", 60_000);
    checkFrames(stream);
    expect(readFileSync(join(app.workspace, "big.txt"), "utf8") === args.content).toBe(true);
    const events = eventsOf(frames);
    const toolEvents = events.filter((event) => event.type === "tool");
    expect(toolEvents).toHaveLength(2);
    const argumentBytes = Buffer.byteLength(JSON.stringify(args), "utf8");
    for (const event of toolEvents) {
      expect(event.data.truncated).toEqual({ arguments: argumentBytes });
      expect(JSON.stringify(args).startsWith(event.data.arguments as string)).toBe(true);
    }
    const call = events
      .filter((event) => event.type === "message")
      .map((event) => event.data.entry as HistoryEntry)
      .find((entry) => entry.kind === "tool_call");
    const part = truncatedPart(call!);
    expect(part).toMatchObject({ kind: "json", encoding: "json", bytes: argumentBytes });
    expect(JSON.parse(await fetchPart(part))).toEqual(args);
  }, 60_000);

  it("pages a history of multi-MiB and near-threshold entries by bytes, visiting every entry once in either direction", async () => {
    provider.script = () => text("ok");
    const session = await app.createSession();
    const inputs = [
      variedText(3 * MiB, "three"),
      ...Array.from({ length: 6 }, (_, i) => variedText(200 * 1024, `small ${i}`)),
      "b".repeat(4 * MiB),
      ...Array.from({ length: 5 }, (_, i) => variedText(200 * 1024, `late ${i}`)),
    ];
    for (const input of inputs) await app.prompt(session, input, uuidv7());
    await app.idle(session, 90_000);

    const everything: string[] = [];
    let page = await getJson<HistoryPage & { byte_limited: boolean }>(
      `/sessions/${session}/history?after=0&limit=200`,
    );
    let cutByBytes = page.byte_limited;
    everything.push(...page.items.map((entry) => entry.id));
    while (page.newer !== null) {
      page = await getJson(`/sessions/${session}/history?limit=200&next=${encodeURIComponent(page.newer)}`);
      cutByBytes ||= page.byte_limited;
      everything.push(...page.items.map((entry) => entry.id));
    }
    expect(cutByBytes).toBe(true);
    expect(new Set(everything).size).toBe(everything.length);
    expect(everything.length).toBeGreaterThanOrEqual(inputs.length + 1);

    const backwards: string[][] = [];
    page = await getJson(`/sessions/${session}/history?limit=200`);
    backwards.unshift(page.items.map((entry) => entry.id));
    while (page.older !== null) {
      page = await getJson(`/sessions/${session}/history?limit=200&next=${encodeURIComponent(page.older)}`);
      backwards.unshift(page.items.map((entry) => entry.id));
    }
    expect(backwards.length).toBeGreaterThan(1);
    expect(backwards.flat()).toEqual(everything);

    // The snapshot's tail is cut by bytes too, says so, and pages on with limit = tail.
    const snapshot = await getJson<{ history: HistoryPage & { byte_limited: boolean } }>(
      `/sessions/${session}`,
    );
    expect(snapshot.history.byte_limited).toBe(true);
    const fromTail = snapshot.history.items.map((entry) => entry.id);
    let token = snapshot.history.older;
    while (token !== null) {
      const older: HistoryPage = await getJson(
        `/sessions/${session}/history?limit=100&next=${encodeURIComponent(token)}`,
      );
      fromTail.unshift(...older.items.map((entry) => entry.id));
      token = older.older;
    }
    expect(fromTail).toEqual(everything);

    // Every user entry reads back exactly, inline or through its ref.
    const users: HistoryEntry[] = [];
    page = await getJson(`/sessions/${session}/history?after=0&limit=200`);
    users.push(...page.items.filter((entry) => entry.kind === "user"));
    while (page.newer !== null) {
      page = await getJson(`/sessions/${session}/history?limit=200&next=${encodeURIComponent(page.newer)}`);
      users.push(...page.items.filter((entry) => entry.kind === "user"));
    }
    const texts: string[] = [];
    for (const entry of users) {
      const part = entry.content[0] as { text?: string; truncated?: boolean };
      texts.push(part.truncated === true ? await fetchPart(part as TruncatedPart) : (part.text ?? ""));
    }
    expect(texts.length).toBe(inputs.length);
    expect(texts.every((value, i) => value === inputs[i])).toBe(true);
  }, 180_000);
});
