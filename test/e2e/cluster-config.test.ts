/**
 * One config for a cluster: a profile added through one node (its HTTP API, or `skein config`
 * on its home) is used by a turn on another node within 2 s, without a restart; each node takes
 * the key from its own environment; a bad change is refused and changes nothing; a bad config
 * written into the database behind the nodes' backs is logged and never used, and the nodes run
 * on. A daemon on SQLite keeps its config in config.json.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { useTestClusters } from "./support/cluster-scope.js";
import { type DaemonHarness, skeinBin } from "./support/daemon-harness.js";
import { eventually, profileFor } from "./support/fixture.js";

const run = promisify(execFile);

interface ConfigView {
  source: string;
  version: number;
  active: string | null;
  providers: Record<string, { shared: boolean; profile: Record<string, unknown> }>;
  shared_entries: Array<{ section: string; name: string }>;
  error: string | null;
}

/** `skein ARGS` on `node`'s home, as its operator would run it there. */
function skein(node: DaemonHarness, args: string[]) {
  return run(process.execPath, [skeinBin, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: node.root, SKEIN_HOME: node.home },
    encoding: "utf8",
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

async function configOf(node: DaemonHarness): Promise<ConfigView> {
  const answer = await node.api("/config");
  expect(answer.status).toBe(200);
  return answer.json<ConfigView>();
}

describe("one config for a cluster", () => {
  const clusters = useTestClusters();

  it("uses a profile added through node A in a turn on node B within 2 s, with B's own key, no restart; and A's shared approval policy and budgets", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await cluster.start(2, 2, (index) => ({
      env: { SHARED_KEY: index === 0 ? "key-of-a" : "key-of-b" },
    }));
    clusters.provider.script = () => text("from the shared profile");
    const profile = {
      protocol: "chat_completions",
      baseUrl: clusters.provider.baseUrlWith("v1"),
      model: "shared-model",
      apiKeyEnv: "SHARED_KEY",
    };
    const added = await a!.api("/config/profiles/shared", { method: "PUT", body: profile });
    expect(added.status).toBe(200);
    const addedAt = Date.now();
    expect(added.json<ConfigView>().providers.shared?.shared).toBe(true);
    await eventually(
      "B to know the shared profile",
      async () => ((await configOf(b!)).providers.shared !== undefined ? true : undefined),
      2_000,
    );
    const knownAt = Date.now();
    const sessionId = await b!.createSession({ provider_profile: "shared" });
    await b!.prompt(sessionId, "hello");
    await clusters.provider.waitForRequests(1);
    const request = clusters.provider.requests[0]!;
    const elapsed = request.receivedAt - addedAt;
    console.log(
      `profile added on A → known on B ${knownAt - addedAt} ms → B's turn at the provider ${elapsed.toFixed(0)} ms`,
    );
    expect(elapsed).toBeLessThan(2_000);
    expect((request.body as { model: string }).model).toBe("shared-model");
    expect(request.headers.authorization).toBe("Bearer key-of-b");
    await b!.idle(sessionId);
    expect(await cluster.ownerOf(sessionId)).toBe(await cluster.nodeIdOf(b!));
    const rows = await cluster.schema.query<{ value: string }>(
      "SELECT value FROM cluster_config WHERE section = 'providers' AND name = 'shared'",
    );
    expect(rows[0]!.value).not.toMatch(/key-of/);
    // Each node logs when a version goes in force: A at its write, B at its NOTIFY.
    const inForceAt = (node: DaemonHarness) =>
      node
        .readLog()
        .split("\n")
        .filter((line) => line.includes('"cluster config in force"') && line.includes('"version":1'))
        .map((line) => (JSON.parse(line) as { time: number }).time)[0];
    console.log(`version 1 in force on A at its write, on B ${inForceAt(b!)! - inForceAt(a!)!} ms later`);
    expect(inForceAt(b!)! - inForceAt(a!)!).toBeLessThan(2_000);
    // A shared approval policy, set through A, decides B's next tool call.
    const policy = await a!.api("/config/settings/approvalPolicy", {
      method: "PUT",
      body: { value: { default: "deny" } },
    });
    expect(policy.status).toBe(200);
    await eventually("B to have the shared policy", async () =>
      (await configOf(b!)).shared_entries.some((entry) => entry.name === "approvalPolicy") ? true : undefined,
    );
    clusters.provider.queue(toolCalls([{ name: "list_files", args: { path: "." }, id: "call_denied" }]));
    await b!.turn(sessionId, "list the files");
    const results = (await b!.history(sessionId)).items.filter((entry) => entry.kind === "tool_result");
    expect(JSON.stringify(results.at(-1)!.content)).toMatch(/denied by the approval policy/);
    // Shared budgets, set through A, apply to B's sessions too.
    const budgets = await a!.api("/config/settings/budgets", {
      method: "PUT",
      body: { value: { session: { maxTokens: 123_456 } } },
    });
    expect(budgets.status).toBe(200);
    await eventually("B to enforce the shared budgets", async () => {
      const { budget } = (await b!.api(`/sessions/${sessionId}?tail=0`)).json<{
        budget: { scope: string; limit: { max_tokens: number | null } } | null;
      }>();
      return budget?.scope === "session" && budget.limit.max_tokens === 123_456 ? true : undefined;
    });
  });

  it("refuses a bad change with the reason, and nothing changes on any node", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await cluster.start(2, 2);
    const good = { protocol: "chat_completions", baseUrl: clusters.provider.baseUrlWith("v1"), model: "m" };
    expect((await a!.api("/config/profiles/good", { method: "PUT", body: good })).status).toBe(200);
    await eventually("B to have version 1", async () =>
      (await configOf(b!)).version === 1 ? true : undefined,
    );
    const before = await cluster.schema.query("SELECT * FROM cluster_config ORDER BY section, name");
    const refusals: Array<[string, string, unknown, RegExp]> = [
      ["PUT", "/config/profiles/bad", { ...good, protocol: "smoke-signals" }, /protocol/],
      ["PUT", "/config/profiles/bad", { ...good, apiKey: "sk-secret" }, /never stored in the database/],
      ["PUT", "/config/profiles/bad", { ...good, headers: { Authorization: "Bearer x" } }, /credential/],
      ["PUT", "/config/profiles/bad", { ...good, unknownField: 1 }, /unknownField/],
      ["PUT", "/config/settings/active", { value: "nobody" }, /"active" names profile "nobody"/],
      ["PUT", "/config/settings/webFetch", { value: {} }, /not a shared setting/],
      ["PUT", "/config/settings/approvalPolicy", { value: { default: "sometimes" } }, /approvalPolicy/],
      ["PUT", "/config/mcp-servers/x", { command: 42 }, /command/],
    ];
    for (const [method, path, body, reason] of refusals) {
      const answer = await b!.api(path, { method, body });
      expect(answer.status, path).toBe(400);
      expect(answer.json<{ code: string; detail: string }>().code).toBe("invalid_request");
      expect(answer.json<{ detail: string }>().detail, path).toMatch(reason);
    }
    const missing = await a!.api("/config/profiles/nobody", { method: "DELETE" });
    expect(missing.status).toBe(404);
    expect(await cluster.schema.query("SELECT * FROM cluster_config ORDER BY section, name")).toEqual(before);
    for (const node of [a!, b!]) {
      const view = await configOf(node);
      expect(view.version).toBe(1);
      expect(Object.keys(view.providers).sort()).toEqual(["fixture", "good"]);
      expect(view.error).toBeNull();
    }
    // The nodes still run turns with the config in force.
    const sessionId = await b!.createSession();
    await b!.turn(sessionId, "still fine");
  });

  it("logs a bad config written into the database behind the nodes' backs, keeps the last good one, and runs on", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await cluster.start(2, 2);
    const good = { protocol: "chat_completions", baseUrl: clusters.provider.baseUrlWith("v1"), model: "m" };
    expect((await a!.api("/config/profiles/good", { method: "PUT", body: good })).status).toBe(200);
    // A newer daemon's value, or a hand-edited row: not a config this daemon can use.
    await cluster.schema.query(
      `INSERT INTO cluster_config (section, name, value, version, updated_at)
       VALUES ('providers', 'broken', '{"protocol":"telepathy"}', 2, 0)`,
    );
    await cluster.schema.query("SELECT pg_notify('skein_config', '2')");
    for (const node of [a!, b!]) {
      const view = await eventually("the node to refuse version 2", async () => {
        const seen = await configOf(node);
        return seen.error !== null ? seen : undefined;
      });
      expect(view.error).toMatch(
        /version 2: provider config in the database \(cluster_config\) is invalid: profile "broken": "protocol" must be one of/,
      );
      expect(view.version).toBe(1);
      expect(Object.keys(view.providers).sort()).toEqual(["fixture", "good"]);
      await eventually("the refusal in the log", () =>
        /cluster config not used; the last good one stays in force/.test(node.readLog()) ? true : undefined,
      );
    }
    const sessionId = await b!.createSession({ provider_profile: "good" });
    await b!.turn(sessionId, "runs on");
    // Removed by hand without a NOTIFY: the poll (every 5 s) finds it on every node.
    const fixedAt = Date.now();
    await cluster.schema.query("UPDATE cluster_config SET value = NULL WHERE name = 'broken'");
    for (const node of [a!, b!]) {
      await eventually(
        "the node to find the fix by polling",
        async () => {
          const view = await configOf(node);
          return view.version === 2 && view.error === null ? true : undefined;
        },
        8_000,
      );
    }
    expect(Date.now() - fixedAt).toBeLessThan(6_000);
    expect(
      (await a!.api("/config/profiles/other", { method: "PUT", body: good })).json<ConfigView>().version,
    ).toBe(3);
    await eventually("B to take version 3", async () =>
      (await configOf(b!)).version === 3 ? true : undefined,
    );
  });

  it("makes `skein config add|use|list|remove` and `skein mcp add|remove` on a node's home change the cluster config, not config.json", async () => {
    const cluster = clusters.cluster();
    const [a, b] = await cluster.start(2, 2);
    const fileBefore = readFileSync(join(a!.home, "config.json"), "utf8");
    const added = await skein(a!, [
      "config",
      "add",
      "team",
      "--protocol",
      "chat_completions",
      "--base-url",
      clusters.provider.baseUrlWith("v1"),
      "--model",
      "team-model",
      "--use",
    ]);
    expect(added.stderr).toBe("");
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/added provider profile "team" .* in the cluster config \(version 2\)/);
    expect(readFileSync(join(a!.home, "config.json"), "utf8")).toBe(fileBefore);
    await eventually("B to use team as its active profile", async () =>
      (await configOf(b!)).active === "team" ? true : undefined,
    );
    clusters.provider.reset();
    clusters.provider.script = () => text("team answer");
    const sessionId = await b!.createSession();
    await b!.turn(sessionId, "which model?");
    expect((clusters.provider.requests[0]!.body as { model: string }).model).toBe("team-model");
    const listed = await skein(b!, ["config", "list"]);
    expect(listed.stdout).toMatch(/\* team .*cluster/);
    const withKey = await skein(a!, [
      "config",
      "add",
      "keyed",
      "--protocol",
      "chat_completions",
      "--model",
      "m",
      "--api-key",
      "sk-no",
    ]);
    expect(withKey.code).toBe(2);
    expect(withKey.stderr).toMatch(/API keys are never stored in the cluster's database/);
    const mcp = await skein(a!, ["mcp", "add", "tools", "--", "/bin/true"]);
    expect(mcp.stdout).toMatch(/added MCP server "tools" in the cluster config/);
    await eventually("B to list the shared MCP server", async () => {
      const servers = (await b!.api("/mcp")).json<{ servers: Array<{ name: string }> }>().servers;
      return servers.some((server) => server.name === "tools") ? true : undefined;
    });
    expect((await skein(b!, ["mcp", "remove", "tools"])).code).toBe(0);
    await eventually("A to drop the shared MCP server", async () =>
      (await configOf(a!)).shared_entries.some((entry) => entry.name === "tools") ? undefined : true,
    );
    const removed = await skein(b!, ["config", "remove", "team"]);
    expect(removed.code).toBe(0);
    await eventually("A to have no team", async () =>
      (await configOf(a!)).providers.team === undefined ? true : undefined,
    );
    expect((await configOf(a!)).active).toBe("fixture");
  });

  it("keeps a daemon on SQLite on its config.json: GET /config says file and changes are refused", async () => {
    const { DaemonHarness } = await import("./support/daemon-harness.js");
    const single = await DaemonHarness.start({ providers: profileFor(clusters.provider) });
    try {
      const view = await configOf(single);
      expect(view.source).toBe("file");
      expect(view.providers.fixture?.profile.apiKey).toBe("(stored)");
      const refused = await single.api("/config/profiles/x", {
        method: "PUT",
        body: { protocol: "chat_completions", model: "m" },
      });
      expect(refused.status).toBe(409);
      expect(refused.json<{ code: string }>().code).toBe("config_not_shared");
      const added = await skein(single, [
        "config",
        "add",
        "local",
        "--protocol",
        "chat_completions",
        "--model",
        "m",
      ]);
      expect(added.code).toBe(0);
      expect(JSON.parse(readFileSync(join(single.home, "config.json"), "utf8")).providers.local.model).toBe(
        "m",
      );
    } finally {
      await single.close();
    }
  });
});
