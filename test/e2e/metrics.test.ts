/**
 * `GET /metrics` after a scripted workload (two sessions, a tool call and an answer each, one
 * client following a stream), parsed with a Prometheus text-format parser: each counter says
 * exactly what the workload did; the route is behind the token like every route with data.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpError, text, toolCalls } from "../support/fake-provider/reply.js";
import { freePort } from "../support/free-port.js";
import { rawRequest } from "./support/daemon-harness.js";
import { fixtureModel, fixtureProfile, startFixture, useSharedFixture } from "./support/fixture.js";

type Families = ReturnType<typeof parsePrometheusTextFormat>;

/** The value of `name`'s sample whose labels include `labels` (undefined when there is none). */
function sample(families: Families, name: string, labels: Record<string, string> = {}): number | undefined {
  const family = families.find((candidate) => candidate.name === name);
  const match = family?.metrics.find((metric) =>
    Object.entries(labels).every(([key, value]) => metric.labels?.[key] === value),
  );
  return match?.value === undefined ? undefined : Number(match.value);
}

describe("the metrics route", () => {
  const shared = useSharedFixture();

  it("counts what a scripted workload did, in Prometheus's text format, every name starting with skein_", async () => {
    const first = await shared.app.createSession();
    const second = await shared.app.createSession();
    const watcher = await shared.app.openStream(first);
    await watcher.next();
    for (const session of [first, second]) {
      shared.provider.queue(toolCalls([{ name: "list_files", args: { path: "." } }]), text("done"));
      await shared.app.turn(session, "look around");
    }
    const answer = await shared.app.api("/metrics", {
      headers: { accept: "text/plain;version=0.0.4;q=0.5,*/*;q=0.1" },
    });
    expect(answer.status).toBe(200);
    expect(answer.headers["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = parsePrometheusTextFormat(answer.text);
    expect(families.filter((family) => !family.name.startsWith("skein_"))).toEqual([]);

    expect(sample(families, "skein_turns_total", { state: "completed" })).toBe(2);
    expect(sample(families, "skein_tool_calls_total", { tool: "list_files", outcome: "ok" })).toBe(2);
    expect(sample(families, "skein_model_requests_total", { model: fixtureModel })).toBe(4);
    const usage = shared.provider.requests.length;
    expect(usage).toBe(4);
    expect(sample(families, "skein_model_tokens_total", { model: fixtureModel, kind: "prompt" })).toBe(40);
    expect(sample(families, "skein_model_tokens_total", { model: fixtureModel, kind: "completion" })).toBe(
      20,
    );
    expect(sample(families, "skein_inputs_total", { outcome: "admitted" })).toBe(2);
    expect(sample(families, "skein_inputs_total", { outcome: "delivered" })).toBe(2);
    expect(sample(families, "skein_sessions", { state: "loaded" })).toBe(2);
    expect(sample(families, "skein_sessions", { state: "running" })).toBe(0);
    expect(sample(families, "skein_sse_watchers")).toBe(1);
    expect(sample(families, "skein_commit_transactions_total")).toBeGreaterThan(0);
    expect(sample(families, "skein_process_cpu_seconds_total")).toBeGreaterThan(0);
    expect(families.find((family) => family.name === "skein_turns_total")?.type).toBe("COUNTER");
    watcher.close();
  });

  it("answers 401 without the token, with nothing counted in the answer", async () => {
    const answer = await rawRequest(shared.app.port, { method: "GET", path: "/metrics", headers: {} });
    expect(answer.status).toBe(401);
    expect(answer.text).not.toContain("skein_");
  });
});

/**
 * The `_count` and `_sum` of a histogram's series whose labels include `labels`, read from the
 * text (the parser above keeps no labels of a histogram's series; it has checked the text).
 */
function histogram(text: string, name: string, labels: Record<string, string> = {}) {
  const series = new Map<string, { count: number; sum: number }>();
  for (const line of text.split("\n")) {
    const match = new RegExp(`^${name}_(count|sum)(?:\\{(.*)\\})? (\\S+)$`).exec(line);
    if (match === null) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (!Object.entries(labels).every(([key, value]) => found[key] === value)) continue;
    const key = match[2] ?? "";
    const entry = series.get(key) ?? { count: 0, sum: 0 };
    entry[match[1] as "count" | "sum"] = Number(match[3]);
    series.set(key, entry);
  }
  return [...series.values()];
}

describe("the metrics port (SKEIN_METRICS_PORT)", () => {
  let fixture: Awaited<ReturnType<typeof startFixture>>;
  let port: number;
  const scrape = (headers: Record<string, string> = {}, path = "/metrics") =>
    rawRequest(port, { method: "GET", path, headers: { host: `127.0.0.1:${port}`, ...headers } });

  beforeAll(async () => {
    port = await freePort("127.0.0.1");
    fixture = await startFixture({ SKEIN_METRICS_PORT: String(port) });
  });
  afterAll(async () => {
    await fixture?.app.close();
    await fixture?.provider.close();
  });

  it("serves the metrics without the token, with request and commit latencies per profile and model and the stream's bytes", async () => {
    const { app, provider } = fixture;
    const session = await app.createSession();
    const watcher = await app.openStream(session);
    await watcher.next();
    provider.queue(toolCalls([{ name: "list_files", args: { path: "." } }]), text("done"));
    await app.turn(session, "look around");
    const answer = await scrape();
    expect(answer.status).toBe(200);
    const families = parsePrometheusTextFormat(answer.text);
    expect(families.find((family) => family.name === "skein_model_request_duration_seconds")?.type).toBe(
      "HISTOGRAM",
    );
    const labels = { profile: fixtureProfile, model: fixtureModel, outcome: "ok" };
    const [requests] = histogram(answer.text, "skein_model_request_duration_seconds", labels);
    expect(requests?.count).toBe(2);
    expect(requests?.sum).toBeGreaterThan(0);
    const [commits] = histogram(answer.text, "skein_commit_duration_seconds");
    expect(commits?.count).toBeGreaterThanOrEqual(2);
    expect(sample(families, "skein_sse_bytes_total")).toBeGreaterThan(100);
    watcher.close();
  });

  it("counts a failed model request as an error", async () => {
    const { app, provider } = fixture;
    const session = await app.createSession();
    provider.script = () => httpError(400, { message: "bad request" });
    await app.turn(session, "fail please");
    const [failed] = histogram((await scrape()).text, "skein_model_request_duration_seconds", {
      outcome: "error",
    });
    expect(failed?.count).toBeGreaterThanOrEqual(1);
  });

  it("answers nothing else, and refuses a Host it does not know (DNS rebinding)", async () => {
    expect((await scrape({}, "/sessions")).status).toBe(404);
    const rebound = await scrape({ host: `attacker.example:${port}` });
    expect(rebound.status).toBe(421);
    expect(rebound.text).not.toContain("skein_");
  });
});
