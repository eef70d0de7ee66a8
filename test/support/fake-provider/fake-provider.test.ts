/**
 * The fake provider itself: it must be trustworthy before other tests lean on it. Byte-level
 * chunking, pacing, request recording, the control endpoint and the standalone process.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { describe, expect, it } from "vitest";
import { createLlmClient } from "../../../src/providers/index.js";
import {
  ask,
  assertWellFormed,
  collect,
  protocols,
  textOf,
  toolCallsOf,
} from "../../providers/stream-helpers.js";
import { deliver, deltas, reasoning, text, toolCalls } from "./index.js";
import { withFakeProvider } from "./with-fake-provider.js";

const fake = withFakeProvider();

const clientFor = (protocol: (typeof protocols)[number], baseUrl = fake().baseUrl) =>
  createLlmClient({ protocol, baseUrl, model: "fake-test", apiKey: "k" });

describe.each(protocols)("fake provider speaking %s", (protocol) => {
  it("delivers a reply cut into 1-byte chunks (split UTF-8 characters and SSE lines) that still decodes", async () => {
    fake().queue(
      deliver(
        reasoning("思考中…", toolCalls([{ name: "f", args: { q: "é" }, id: "id-1" }], { text: "Voilà 🎉" })),
        {
          chunkSize: 1,
        },
      ),
    );
    const { events, error } = await collect(clientFor(protocol), ask());
    expect(error).toBeUndefined();
    assertWellFormed(events);
    expect(textOf(events)).toBe("Voilà 🎉");
    expect(toolCallsOf(events).map((call) => call.args)).toEqual(['{"q":"é"}']);
  });

  it("paces events with a delay", async () => {
    fake().queue(deliver(text(["a", "b", "c", "d"]), { delayMs: 40 }));
    const started = Date.now();
    const { events } = await collect(clientFor(protocol), ask());
    expect(textOf(events)).toBe("abcd");
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it("streams many deltas as fast as it can", async () => {
    fake().queue(deltas(20_000, (index) => String(index % 10)));
    const { events, error } = await collect(clientFor(protocol), ask());
    expect(error).toBeUndefined();
    expect(textOf(events)).toHaveLength(20_000);
  });
});

describe("fake provider recording and control", () => {
  it("records method, path, headers and the parsed body of every request", async () => {
    fake().queue(text("one"));
    await collect(clientFor("anthropic"), ask("recorded?"));
    expect(fake().requests).toHaveLength(1);
    const [request] = fake().requests;
    expect(request).toMatchObject({
      method: "POST",
      path: "/v1/messages",
      protocol: "anthropic",
      clientAborted: false,
    });
    expect(request?.headers["x-api-key"]).toBe("k");
    expect(request?.body).toMatchObject({ model: "fake-test", stream: true });
  });

  it("stamps when a request arrived and when the last byte of its answer was written", async () => {
    const before = performance.timeOrigin + performance.now();
    fake().queue(deliver(text(["a", "b", "c"]), { delayMs: 20 }));
    await collect(clientFor("chat_completions"), ask());
    const after = performance.timeOrigin + performance.now();
    const { receivedAt, finishedAt } = fake().lastRequest;
    expect(receivedAt).toBeGreaterThanOrEqual(before);
    expect(finishedAt).toBeDefined();
    // Paced frames: the answer took at least the delays between them.
    expect(finishedAt! - receivedAt).toBeGreaterThanOrEqual(40);
    expect(finishedAt!).toBeLessThanOrEqual(after);
  });

  it("answers unknown paths with 404 and falls back to the script when nothing is queued", async () => {
    const missing = await fetch(`${fake().baseUrl}/v2/unknown`, { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
    fake().script = (request) => text(`you sent ${request.protocol}`);
    const { events } = await collect(clientFor("gemini"), ask());
    expect(textOf(events)).toBe("you sent gemini");
  });

  it("takes replies and reports requests over its control endpoint", async () => {
    const queued = await fetch(`${fake().baseUrl}/_fake/replies`, {
      method: "POST",
      body: JSON.stringify([text("from the control endpoint")]),
    });
    expect(await queued.json()).toEqual({ queued: 1 });
    const { events } = await collect(clientFor("responses"), ask());
    expect(textOf(events)).toBe("from the control endpoint");
    const recorded = (await (await fetch(`${fake().baseUrl}/_fake/requests`)).json()) as { path: string }[];
    expect(recorded.map((request) => request.path)).toEqual(["/v1/responses"]);
  });

  it("runs as a standalone process that prints its base URL", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/fake-provider/main.ts"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const lines = createInterface({ input: child.stdout });
      const [line] = (await once(lines, "line")) as [string];
      const { baseUrl } = JSON.parse(line) as { baseUrl: string };
      expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const { events } = await collect(clientFor("chat_completions", baseUrl), ask());
      expect(textOf(events)).toBe("Hello from the fake provider.");
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
    }
  });
});
