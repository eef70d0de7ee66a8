/**
 * Stream replay: a replay cursor never skips durable events, across
 * an actor restart, a daemon crash, the same generation, a storage failure and an evicted
 * window. Runs the real daemon process against the fake provider over loopback HTTP.
 */

import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { raw, sse, text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { DaemonHarness, databaseKinds, type StreamPage, userTexts } from "./support/daemon-harness.js";

function interleaved(pairs: number): string[] {
  const frames: string[] = [];
  for (let i = 0; i < pairs; i++) {
    for (const delta of [{ reasoning_content: "thought " }, { content: "answer " }]) {
      frames.push(sse({ id: "fixture", choices: [{ index: 0, delta, finish_reason: null }] }));
    }
  }
  frames.push(sse({ id: "fixture", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
  frames.push(sse("[DONE]"));
  return frames;
}

function assertResetHistory(page: StreamPage, prompts: string[]): void {
  expect(page.events[0]?.type).toBe("reset");
  expect(userTexts(page.snapshot?.history.items ?? [])).toEqual(prompts);
}

describe.each(databaseKinds)("stream replay ($name)", ({ database }) => {
  let provider: FakeProvider;

  beforeAll(async () => {
    provider = await FakeProvider.start();
  });

  afterAll(async () => {
    await provider.close();
  });

  function profile() {
    return {
      fixture: {
        protocol: "chat_completions" as const,
        baseUrl: provider.baseUrlWith("v1"),
        apiKey: "fixture-key",
        model: "fixture-model",
      },
    };
  }

  async function withDaemon(env: Record<string, string>, body: (app: DaemonHarness) => Promise<void>) {
    provider.reset();
    provider.script = () => text("answer");
    const app = await DaemonHarness.start({ providers: profile(), env, database });
    try {
      await body(app);
    } finally {
      await app.close();
    }
  }

  it("inspection routes report failures: off without SKEIN_INSPECT, not found for an unknown session", async () => {
    await withDaemon({}, async (app) => {
      const session = await app.createSession();
      const hidden = await app.api(`/debug/sessions/${session}/restart`, { method: "POST" });
      expect(hidden.status).toBe(404);
      expect(hidden.json().code).toBe("resource_not_found");
    });
    await withDaemon({ SKEIN_INSPECT: "1" }, async (app) => {
      const unknown = await app.api(`/debug/sessions/${uuidv7()}/restart`, { method: "POST" });
      expect(unknown.status).toBe(404);
      expect(unknown.json().code).toBe("resource_not_found");
      const malformed = await app.api("/debug/sessions/not-a-uuid/restart", { method: "POST" });
      expect(malformed.status).toBe(400);
      expect(malformed.headers["content-type"]).toBe("application/problem+json");
    });
  });

  it("old actor cursor inside replacement window resets durable history", async () => {
    await withDaemon({ SKEIN_INSPECT: "1" }, async (app) => {
      const session = await app.createSession();
      await app.turn(session, "before actor restart");
      const old = await app.streamPage(session);
      const restarted = await app.api(`/debug/sessions/${session}/restart`, { method: "POST" });
      expect(restarted.json()).toEqual({ result: "actor_stopped" });
      await app.turn(session, "after actor restart");
      const current = await app.streamPage(session);
      const replay = await app.streamPage(session, old);
      assertResetHistory(replay, ["before actor restart", "after actor restart"]);
      expect(replay.generation).not.toBe(old.generation);
      expect(replay.generation).toBe(current.generation);
    });
  });

  it("old daemon cursor resets durable history", async () => {
    await withDaemon({}, async (app) => {
      const session = await app.createSession();
      await app.turn(session, "before daemon restart");
      const old = await app.streamPage(session);
      await app.restart({ crash: true });
      await app.turn(session, "after daemon restart");
      const current = await app.streamPage(session);
      const replay = await app.streamPage(session, old);
      assertResetHistory(replay, ["before daemon restart", "after daemon restart"]);
      expect(replay.generation).not.toBe(old.generation);
      expect(replay.generation).toBe(current.generation);
    });
  });

  it("same generation replays only subsequent events in order", async () => {
    await withDaemon({}, async (app) => {
      const session = await app.createSession();
      await app.turn(session, "already consumed");
      const old = await app.streamPage(session);
      await app.turn(session, "next prompt");
      await app.turn(session, "last prompt");
      const replay = await app.streamPage(session, old);
      expect(replay.generation).toBe(old.generation);
      expect(replay.cursor).toBeGreaterThan(old.cursor);
      expect(replay.events.map((event) => event.type)).not.toContain("reset");
      const prompts = replay.events
        .filter((event) => event.type === "message")
        .map(
          (event) =>
            (event.data as { entry: { kind: string; content: { kind: string; text?: string }[] } }).entry,
        )
        .filter((entry) => entry.kind === "user")
        .flatMap((entry) => entry.content.filter((part) => part.kind === "text").map((part) => part.text));
      expect(prompts).toEqual(["next prompt", "last prompt"]);
      const keepalive = await app.streamPage(session, replay);
      expect(keepalive.events).toEqual([]);
      expect(keepalive.generation).toBe(replay.generation);
      expect(keepalive.cursor).toBe(replay.cursor);
    });
  });

  it("failed transcript read emits failure without replacement cursor", async () => {
    await withDaemon({}, async (app) => {
      const session = await app.createSession();
      await app.turn(session, "committed history");
      const old = await app.streamPage(session);
      const otherGeneration = (await app.streamPage(await app.createSession())).generation;
      await app.sql("ALTER TABLE transcript RENAME TO unavailable_transcript");
      const response = await app.api(
        `/sessions/${session}?after_generation=${otherGeneration}&after_seq=${old.cursor}&tail=2`,
        { headers: { accept: "text/event-stream" } },
      );
      expect(response.status).toBe(503);
      const problem = response.json();
      expect(problem.code).toBe("request_unavailable");
      expect(problem).not.toHaveProperty("snapshot");
      expect(problem).not.toHaveProperty("generation");
      expect(problem).not.toHaveProperty("cursor");
      // The daemon keeps serving other requests.
      const server = await app.api("/server");
      expect(server.status).toBe(200);
    });
  });

  it("evicted cursor resets in same generation and initial tail pages history", async () => {
    await withDaemon({}, async (app) => {
      const session = await app.createSession();
      await app.turn(session, "oldest prompt");
      const old = await app.streamPage(session);
      // Alternating thinking and text never merge into one event, so a long interleaved
      // answer evicts the count-limited replay window.
      provider.script = () => raw(interleaved(150));
      await app.turn(session, "newest prompt");
      const replay = await app.streamPage(session, old);
      expect(replay.generation).toBe(old.generation);
      assertResetHistory(replay, ["oldest prompt", "newest prompt"]);
      const initial = await app.streamPage(session, undefined, { tail: 3 });
      assertResetHistory(initial, ["newest prompt"]);
      const history = initial.snapshot!.history;
      expect(history.older).not.toBeNull();
      const older = await app.api(`/sessions/${session}/history?limit=3&next=${history.older}`);
      expect(older.status).toBe(200);
      expect(userTexts(older.json<{ items: never[] }>().items)).toEqual(["oldest prompt"]);
    });
  });
});
