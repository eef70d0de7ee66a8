/**
 * A session's provider, model and model parameters: set per profile in config.json, overridden
 * at creation, changed later with `PATCH /sessions/{id}` (logged as `config_changed`, taking
 * effect from the next model request), shown in the snapshot with the values the next request
 * uses, and sent to the provider accordingly.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { text } from "../support/fake-provider/reply.js";
import type { RecordedRequest } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { chatAndClaudeProfiles, eventually, fixtureModel, gate, useFakeProvider } from "./support/fixture.js";

interface Settings {
  provider_profile: string | null;
  model: string | null;
  request_config: Record<string, unknown>;
  effective: null | {
    provider_profile: string;
    protocol: string;
    model: string;
    request_config: Record<string, unknown>;
  };
}

describe("session settings", () => {
  const fake = useFakeProvider();

  async function daemon(): Promise<DaemonHarness> {
    return fake.daemon({
      providers: chatAndClaudeProfiles(fake.provider, { temperature: 0.7, maxOutputTokens: 100 }),
    });
  }

  function body(request: RecordedRequest | undefined): Record<string, unknown> {
    return (request?.body ?? {}) as Record<string, unknown>;
  }

  async function settingsOf(app: DaemonHarness, id: string): Promise<Settings> {
    return (await app.api(`/sessions/${id}?tail=0`)).json<{ settings: Settings }>().settings;
  }

  it("sends the profile's defaults, overridden field by field by the session's own parameters", async () => {
    const app = await daemon();
    const plain = await app.createSession();
    await app.turn(plain, "one");
    expect(body(fake.provider.requests[0])).toMatchObject({
      model: fixtureModel,
      temperature: 0.7,
      max_tokens: 100,
    });

    const own = await app.createSession({ request_config: { temperature: 0.2 } });
    await app.turn(own, "two");
    expect(body(fake.provider.requests[1])).toMatchObject({ temperature: 0.2, max_tokens: 100 });
    expect(await settingsOf(app, own)).toEqual({
      provider_profile: "chat",
      model: fixtureModel,
      request_config: { temperature: 0.2 },
      effective: {
        provider_profile: "chat",
        protocol: "chat_completions",
        model: fixtureModel,
        request_config: { temperature: 0.2, max_tokens: 100 },
      },
    });
  });

  it("shows the profile's provider again after a model is set and then put back to the default", async () => {
    const app = await daemon();
    const id = await app.createSession();
    await app.turn(id, "one");
    for (const model of ["other-model", null]) {
      const patched = await app.api(`/sessions/${id}`, { method: "PATCH", body: { model } });
      expect(patched.status).toBe(200);
    }
    await app.turn(id, "two");
    expect(body(fake.provider.requests[1]).model).toBe(fixtureModel);
    const expected = { provider_profile: "chat", protocol: "chat_completions", model: fixtureModel };
    expect((await settingsOf(app, id)).effective).toMatchObject(expected);
    const listed = (await app.api("/sessions")).json<{ items: { id: string; model: string | null }[] }>();
    expect(listed.items.find((item) => item.id === id)?.model).toBe(fixtureModel);
    // A reloaded session (as after a restart) reads the same settings back from its log.
    await app.restart({ crash: false });
    expect((await settingsOf(app, id)).effective).toMatchObject(expected);
  });

  it("changes model and parameters with PATCH from the next request on, logged as config_changed", async () => {
    const app = await daemon();
    const id = await app.createSession({ request_config: { temperature: 0.2, max_tokens: 50 } });
    await app.turn(id, "one");
    const patched = await app.api(`/sessions/${id}`, {
      method: "PATCH",
      body: { model: "other-model", request_config: { temperature: null, reasoning: { effort: "low" } } },
    });
    expect(patched.status).toBe(200);
    expect(patched.json<Settings>()).toMatchObject({
      model: "other-model",
      request_config: { max_tokens: 50, reasoning: { effort: "low" } },
    });
    await app.turn(id, "two");
    const second = body(fake.provider.requests[1]);
    expect(second.model).toBe("other-model");
    expect(second.max_tokens).toBe(50);
    expect(second.temperature).toBe(0.7);

    const db = new Database(app.dbPath, { readonly: true });
    const kinds = db
      .prepare<[string], string>("SELECT kind FROM transcript WHERE session = ? ORDER BY position")
      .pluck()
      .all(id);
    db.close();
    expect(kinds).toContain("config_changed");
    expect((await app.api(`/sessions/${id}/verify`)).json()).toMatchObject({ status: "verified" });
  });

  it("switches a session to another profile and protocol, whose default model it then uses", async () => {
    const app = await daemon();
    const id = await app.createSession();
    await app.turn(id, "one");
    const patched = await app.api(`/sessions/${id}`, {
      method: "PATCH",
      body: { provider_profile: "claude" },
    });
    expect(patched.json<Settings>()).toMatchObject({
      provider_profile: "claude",
      model: null,
      effective: { protocol: "anthropic", model: "claude-sonnet-4-5" },
    });
    await app.turn(id, "two");
    expect(fake.provider.requests[1]?.protocol).toBe("anthropic");
    expect(body(fake.provider.requests[1]).model).toBe("claude-sonnet-4-5");
  });

  it("refuses an unknown profile with 400 and changes nothing", async () => {
    const app = await daemon();
    const id = await app.createSession();
    const before = (await app.api(`/sessions/${id}/verify`)).json<{ entries: number }>().entries;
    const refused = await app.api(`/sessions/${id}`, { method: "PATCH", body: { provider_profile: "nope" } });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({ code: "invalid_request" });
    const bad = await app.api(`/sessions/${id}`, {
      method: "PATCH",
      body: { request_config: { temperature: 9 } },
    });
    expect(bad.status).toBe(400);
    expect((await app.api(`/sessions/${id}/verify`)).json<{ entries: number }>().entries).toBe(before);
    expect((await settingsOf(app, id)).provider_profile).toBe("chat");
  });

  it("lets a running turn finish with what it started with", async () => {
    const app = await daemon();
    const id = await app.createSession();
    const held = gate();
    fake.provider.script = async () => {
      await held.promise;
      return text("slow");
    };
    await app.prompt(id, "one");
    await eventually("the first request", () => (fake.provider.requests.length > 0 ? true : undefined));
    const patched = await app.api(`/sessions/${id}`, { method: "PATCH", body: { model: "later-model" } });
    expect(patched.status).toBe(200);
    held.open();
    await app.idle(id);
    fake.provider.script = () => text("ok");
    await app.turn(id, "two");
    expect(body(fake.provider.requests[0]).model).toBe(fixtureModel);
    expect(body(fake.provider.requests[1]).model).toBe("later-model");
  });
});
