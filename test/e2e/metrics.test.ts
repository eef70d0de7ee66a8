/**
 * `GET /metrics` after a scripted workload (two sessions, a tool call and an answer each, one
 * client following a stream), parsed with a Prometheus text-format parser: each counter says
 * exactly what the workload did; the route is behind the token like every route with data.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { rawRequest } from "./support/daemon-harness.js";
import { fixtureModel, useSharedFixture } from "./support/fixture.js";

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
