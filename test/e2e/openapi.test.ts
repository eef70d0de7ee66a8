/**
 * GET /openapi.json against a real daemon: a valid OpenAPI 3.1 document that describes every
 * route the daemon serves, every problem code and the events of both streams; then
 * representative requests of every route (successes and refusals, JSON and SSE) whose answers
 * are each validated against it by the harness (test/support/openapi-check.ts), which must
 * also reject an answer that breaks it.
 */
import { Validator } from "@seriousme/openapi-schema-validator";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { problemStatuses } from "../../src/api/problem.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";
import type { OpenApiCheck } from "../support/openapi-check.js";
import type { DaemonHarness } from "./support/daemon-harness.js";
import { rawRequest } from "./support/daemon-harness.js";
import { eventually, startFixture } from "./support/fixture.js";

interface Document {
  openapi: string;
  paths: Record<string, Record<string, { summary: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { anyOf?: Array<{ properties: { code: { const: string } } }> }> };
}

describe("the OpenAPI document", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let document: Document;
  let check: OpenApiCheck;

  beforeAll(async () => {
    ({ provider, app } = await startFixture({ SKEIN_INSPECT: "1" }));
    document = (await app.api("/openapi.json")).json<Document>();
    check = app.openapi!;
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it("is a valid OpenAPI 3.1 document", async () => {
    expect(document.openapi).toBe("3.1.0");
    const result = await new Validator().validate(
      document as unknown as Parameters<Validator["validate"]>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it("describes every route with a summary and an answer, every problem code, and both streams' events", () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        key: `${method.toUpperCase()} ${path}`,
        operation,
      })),
    );
    expect(operations.map((entry) => entry.key).sort()).toEqual(
      [
        "DELETE /sessions/{id}",
        "PATCH /sessions/{id}",
        "POST /sessions/{sid}/approvals/{callId}",
        "POST /sessions/{sid}/compact",
        "POST /sessions/{sid}/repair",
        "PUT /sessions/{sid}/approval-policy",
        "PUT /sessions/{sid}/budget",
        "DELETE /sessions/{sid}/budget",
        "GET /",
        "GET /assets/{file}",
        "GET /login",
        "POST /login",
        "GET /login/submit.js",
        "GET /mcp",
        "GET /metrics",
        "GET /openapi.json",
        "GET /readyz",
        "GET /server",
        "GET /cluster",
        "GET /config",
        "PUT /config/profiles/{name}",
        "DELETE /config/profiles/{name}",
        "PUT /config/mcp-servers/{name}",
        "DELETE /config/mcp-servers/{name}",
        "PUT /config/settings/{name}",
        "DELETE /config/settings/{name}",
        "GET /healthz",
        "GET /sessions",
        "GET /sessions/{id}",
        "GET /sessions/{id}/entries/{entry}/content",
        "GET /sessions/{id}/history",
        "GET /sessions/{id}/verify",
        "GET /sessions/{sid}/inputs/{iid}",
        "GET /web/session",
        "POST /debug/sessions/{id}/restart",
        "POST /gc",
        "POST /mcp/{name}/test",
        "POST /providers/{name}/test",
        "POST /server/shutdown",
        "POST /sessions/{sid}/inputs/{iid}/cancel",
        "POST /sessions/{sid}/interrupt",
        "POST /web/login-codes",
        "POST /web/logout",
        "PUT /sessions/{id}",
        "PUT /sessions/{sid}/inputs/{iid}",
        "GET /schedules",
        "POST /schedules",
        "GET /schedules/{id}",
        "PATCH /schedules/{id}",
        "DELETE /schedules/{id}",
        "POST /tokens",
        "GET /tokens",
        "DELETE /tokens/{name}",
        "POST /devices",
        "GET /devices",
        "DELETE /devices/{name}",
        "GET /pair",
        "POST /pair",
      ].sort(),
    );
    for (const { key, operation } of operations) {
      expect(operation.summary, key).not.toBe("");
      expect(
        Object.keys(operation.responses).filter((status) => status !== "default"),
        key,
      ).not.toEqual([]);
    }
    const codes = document.components.schemas.Problem!.anyOf!.map(
      (alternative) => alternative.properties.code.const,
    );
    expect(codes.sort()).toEqual(Object.keys(problemStatuses).sort());
    const eventTypes = (name: string) =>
      (
        document.components.schemas[name] as unknown as {
          anyOf: Array<{ properties: { type: { const: string } } }>;
        }
      ).anyOf
        .map((event) => event.properties.type.const)
        .sort();
    expect(eventTypes("SessionEvent")).toEqual(
      [
        "approval_requested",
        "approval_resolved",
        "compaction_completed",
        "compaction_failed",
        "compaction_started",
        "committed",
        "error",
        "input",
        "message",
        "retry",
        "status",
        "task_completed",
        "task_started",
        "text",
        "thinking",
        "tool",
        "turn_completed",
        "usage",
      ].sort(),
    );
    expect(eventTypes("SessionListEvent")).toEqual(["created", "deleted", "status", "updated"]);
  });

  it("matches the real answers of every route, successes and refusals, JSON and SSE", async () => {
    provider.queue(
      toolCalls([
        { name: "write_file", args: { path: "a.txt", content: "x".repeat(400_000) }, id: "call_big" },
      ]),
      text("written"),
    );
    const list = await app.openListStream();
    const id = await app.createSession();
    const stream = await app.openStream(id);
    const inputId = uuidv7();
    await app.prompt(id, "write a.txt", inputId);
    await app.idle(id);
    await stream.readUntil((event) => event.type === "turn_completed");
    await list.readUntil((event) => event.type === "status");
    stream.close();
    list.close();

    await app.api(`/sessions/${id}`);
    await app.api("/sessions?scope=top");
    await app.api(`/sessions/${id}/inputs/${inputId}`);
    await app.api(`/sessions/${id}/inputs/${inputId}/cancel`, { method: "POST" });
    await app.api(`/sessions/${id}/interrupt`, {
      method: "POST",
      body: { run_id: null, through_input_order: 0 },
    });
    const history = await app.history(id, "limit=1");
    await app.api(`/sessions/${id}/history?limit=1&next=${encodeURIComponent(history.older!)}`);
    const call = (await app.history(id)).items.find((entry) => entry.kind === "tool_call")!;
    const ref = (call.content[0] as { ref?: string }).ref;
    expect(ref).toBeDefined();
    await app.api(`${ref}&limit=1000`);
    await app.api(`/sessions/${id}/verify`);
    await app.api(`/sessions/${id}`, { method: "PATCH", body: { request_config: { max_tokens: 2048 } } });
    expect((await app.api(`/sessions/${id}/compact`, { method: "POST" })).status).toBe(202);
    // The summary is written in the background: its model request must be answered before the
    // replies queued below, or it takes the tool call meant for the next turn.
    await eventually("the compaction to end", async () => {
      const snapshot = (await app.api(`/sessions/${id}?tail=0`)).json<{ context: { compacting: boolean } }>();
      return snapshot.context.compacting ? undefined : true;
    });
    await app.api(`/sessions/${id}/approval-policy`, {
      method: "PUT",
      body: { approval_policy: { default: "ask", rules: [] } },
    });
    provider.queue(toolCalls([{ name: "list_files", args: { path: "." }, id: "call_ask" }]), text("listed"));
    const asking = await app.openStream(id);
    await app.prompt(id, "list the files");
    await asking.readUntil((event) => event.type === "approval_requested");
    await app.api(`/sessions/${id}/approvals/call_ask`, { method: "POST", body: { decision: "allow" } });
    await asking.readUntil((event) => event.type === "turn_completed");
    asking.close();
    await app.idle(id);
    await app.api(`/sessions/${id}/approval-policy`, { method: "PUT", body: { approval_policy: null } });
    await app.api(`/sessions/${id}/budget`, { method: "PUT", body: { maxTokens: 1_000_000, period: "day" } });
    await app.api(`/sessions/${id}/budget`, { method: "PUT", body: { maxTokens: -1 } });
    await app.api(`/sessions/${id}`);
    await app.api(`/sessions/${id}/budget`, { method: "DELETE" });
    await app.api(`/sessions/${id}/repair`, { method: "POST", body: { from_position: 100_000 } });
    await app.api(`/sessions/${id}/repair`, { method: "POST", body: { from_position: 1 } });
    const forkId = uuidv7();
    await app.api(`/sessions/${forkId}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "fork", source_session_id: id, checkpoint_id: call.checkpoint_id },
    });
    await app.api(`/debug/sessions/${forkId}/restart`, { method: "POST" });
    await app.api(`/sessions/${forkId}`, { method: "DELETE" });
    await app.api("/gc", { method: "POST", body: { dry_run: true } });
    await app.api("/gc", { method: "POST", body: { dry_run: "yes" } });
    const scheduleBody = {
      id: "daily",
      cron: "0 7 * * *",
      session_id: id,
      prompt: "p",
      missed: "skip",
      budget: { maxCostUsd: 1.5 },
    };
    await app.api("/schedules", { method: "POST", body: scheduleBody });
    await app.api("/schedules", { method: "POST", body: scheduleBody });
    await app.api("/schedules");
    await app.api("/schedules/daily");
    await app.api("/tokens", { method: "POST", body: { name: "openapi", role: "viewer" } });
    await app.api("/tokens", { method: "POST", body: { name: "openapi", role: "viewer" } });
    await app.api("/tokens", { method: "POST", body: { name: "bad name", role: "viewer" } });
    await app.api("/tokens");
    await app.api("/tokens/openapi", { method: "DELETE" });
    await app.api("/tokens/openapi", { method: "DELETE" });
    const pairing = (await app.api("/devices", { method: "POST", body: { name: "pad" } })).json<{
      pairing_url: string;
    }>();
    await app.api("/devices", { method: "POST", body: { name: "pad" } });
    const pair = new URL(pairing.pairing_url);
    await app.api(`${pair.pathname}${pair.search}`);
    await app.api(`${pair.pathname}${pair.search}`, { method: "POST" });
    await app.api(`${pair.pathname}${pair.search}`, { method: "POST" });
    await app.api("/devices");
    await app.api("/devices/pad", { method: "DELETE" });
    await app.api("/devices/pad", { method: "DELETE" });
    await app.api("/schedules/daily", { method: "PATCH", body: { paused: true } });
    await app.api("/schedules/daily", { method: "DELETE" });
    await app.api("/schedules/daily");
    await app.api("/mcp");
    await app.api("/cluster");
    await app.api("/config");
    // A daemon on SQLite keeps its config in config.json: a change is 409 config_not_shared.
    await app.api("/config/profiles/x", {
      method: "PUT",
      body: { protocol: "chat_completions", model: "m" },
    });
    await app.api("/config/profiles/x", { method: "DELETE" });
    await app.api("/config/mcp-servers/x", { method: "PUT", body: { command: "x" } });
    await app.api("/config/mcp-servers/x", { method: "DELETE" });
    await app.api("/config/settings/active", { method: "PUT", body: { value: "x" } });
    await app.api("/config/settings/active", { method: "DELETE" });
    await app.api("/healthz");
    await app.api("/readyz");
    await app.api("/metrics");
    await app.api("/mcp/none/test", { method: "POST", body: {} });
    await app.api("/providers/fixture/test", { method: "POST", body: { timeout_ms: 5_000 } });
    await app.api("/web/session");
    const link = (await app.api("/web/login-codes", { method: "POST" })).json<{ url: string }>();
    const login = new URL(link.url);
    await app.api(`${login.pathname}${login.search}`);
    await app.api(`${login.pathname}${login.search}`, { method: "POST" });
    await app.api(`${login.pathname}${login.search}`, { method: "POST" });
    await app.api("/login/submit.js");
    await app.api("/web/logout", { method: "POST" });
    const page = await app.api("/");
    const asset = /\/assets\/[^"]+\.js/.exec(page.text)![0];
    await app.api(asset);

    // Refusals: each is problem JSON of its code.
    await app.api(`/sessions/${id}`, { method: "PUT", body: { kind: "new", workspace: app.workspace } });
    await app.api(`/sessions/${id}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace },
    });
    await app.api(`/sessions/${uuidv7()}`);
    await app.api("/sessions", { method: "PATCH" });
    await app.api("/nowhere");
    await app.api(`/sessions/${id}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: " " },
    });
    await app.api("/sessions?scope=bad");
    await app.api("/server", { headers: { accept: "text/plain" } });
    const refused = await rawRequest(app.port, { method: "GET", path: "/sessions", headers: {} });
    check.checkAnswer(
      "GET",
      "/sessions",
      refused.status,
      String(refused.headers["content-type"]),
      refused.text,
    );

    const seen = [...check.checked.keys()];
    for (const [template, methods] of Object.entries(document.paths)) {
      for (const method of Object.keys(methods)) {
        const key = `${method.toUpperCase()} ${template}`;
        if (key === "POST /server/shutdown") continue;
        expect(
          seen.some((checked) => checked.startsWith(`${key} `)),
          `no answer of ${key} was checked`,
        ).toBe(true);
      }
    }
    for (const status of [400, 401, 404, 405, 406, 412, 428]) {
      expect(
        seen.some((key) => key.endsWith(` ${status}`)),
        `status ${status}`,
      ).toBe(true);
    }
    expect(seen).toContain("frame /sessions/{id}");
    expect(seen).toContain("frame /sessions");
    expect(seen).toContain("GET /login 200");
    expect(seen).toContain("POST /login 303");
    expect(seen).toContain("POST /login 401");
    expect(seen).toContain("GET /pair 200");
    expect(seen).toContain("POST /pair 303");
    expect(seen).toContain("POST /pair 401");
  });

  it("rejects answers that break the document", async () => {
    const snapshot = (await app.api(`/sessions/${await app.createSession()}`)).json<
      Record<string, unknown>
    >();
    const { history: _history, ...withoutHistory } = snapshot;
    const json = "application/json";
    expect(() =>
      check.checkAnswer("GET", `/sessions/${snapshot.id}`, 200, json, JSON.stringify(withoutHistory)),
    ).toThrow(/does not match/);
    expect(() =>
      check.checkAnswer("GET", "/server", 200, json, JSON.stringify({ ...snapshot, extra: true })),
    ).toThrow(/does not match/);
    const problem = { type: "about:blank", title: "x", status: 404, detail: "x", code: "queue_full" };
    expect(() =>
      check.checkAnswer("GET", "/server", 404, "application/problem+json", JSON.stringify(problem)),
    ).toThrow(/does not match/);
    expect(() => check.checkAnswer("GET", "/server", 200, "text/plain", "ready")).toThrow(/media type/);
    expect(() =>
      check.checkFrame(
        `/sessions/${snapshot.id}`,
        JSON.stringify({ generation: "g", cursor: -1, events: [] }),
      ),
    ).toThrow(/does not match/);
  });
});
