/**
 * `POST /providers/{name}/test` over real HTTP: the daemon sends one tiny request to the
 * profile's provider and answers what came of it; the provider's failures are a 200 that says
 * what went wrong, an unknown profile is a 404 and a malformed body a 400.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProviderTestAnswer } from "../../src/api/provider-test.js";
import { hang, httpError, text } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { fixtureModel, fixtureProfile, startFixture } from "./support/fixture.js";

describe("POST /providers/{name}/test", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;

  beforeAll(async () => {
    ({ provider, app } = await startFixture());
  });

  afterAll(async () => {
    await app.close();
    await provider.close();
  });

  const test = (name: string, body: unknown = {}) =>
    app.api(`/providers/${name}/test`, { method: "POST", body });

  it("answers the provider's text, the profile it used and the request's usage", async () => {
    provider.reset();
    provider.script = () => text(" OK \n");
    const response = await test(fixtureProfile);
    expect(response.status, response.text).toBe(200);
    const answer = response.json<ProviderTestAnswer>();
    expect(answer).toMatchObject({
      profile: fixtureProfile,
      protocol: "chat_completions",
      model: fixtureModel,
      base_url: provider.baseUrlWith("v1"),
      api_key_env: null,
      result: { ok: true, text: "OK" },
    });
    expect(answer.elapsed_ms).toBeGreaterThanOrEqual(0);
    expect(provider.requests).toHaveLength(1);
    expect(provider.lastRequest.headers.authorization).toBe("Bearer fixture-key");
  });

  it("says why the provider refused, with its status, as a 200", async () => {
    provider.reset();
    provider.script = () => httpError(401, { message: "invalid api key" });
    const response = await test(fixtureProfile);
    expect(response.status).toBe(200);
    expect(response.json<ProviderTestAnswer>().result).toMatchObject({
      ok: false,
      kind: "http",
      status: 401,
      message: expect.stringContaining("invalid api key"),
    });
    expect(provider.requests).toHaveLength(1);
  });

  it("gives up after timeout_ms when the provider does not answer", async () => {
    provider.reset();
    provider.script = () => hang();
    const response = await test(fixtureProfile, { timeout_ms: 300 });
    expect(response.status).toBe(200);
    expect(response.json<ProviderTestAnswer>().result).toEqual({
      ok: false,
      kind: "timeout",
      status: null,
      message: "no answer within 300 ms",
    });
  });

  it("refuses an unknown profile (404) and a malformed body (400) without sending anything", async () => {
    provider.reset();
    const unknown = await test("nobody");
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ code: "resource_not_found" });
    expect(unknown.json<{ detail: string }>().detail).toContain('"nobody" is not configured');
    for (const body of [{ timeout_ms: 0 }, { timeout_ms: "1" }, { extra: true }]) {
      const refused = await test(fixtureProfile, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({ code: "invalid_request" });
    }
    expect(provider.requests).toHaveLength(0);
  });
});
