// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} is a config placeholder
/**
 * MCP servers and project instructions through the real daemon: GET /mcp and POST
 * /mcp/{name}/test; a turn in each of the four protocols in which the model calls an MCP tool
 * whose name and `$ref` schema need the portable naming and Gemini's conversion (the fake
 * provider answers the vendors' 400 otherwise); bad servers reported while the daemon and the
 * turn go on; SIGKILL in the middle of an MCP call (the call is never run again); the server's
 * process group ended with the daemon; AGENTS.md added to the system prompt, logged and capped.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpStatus, McpTestReport } from "../../src/api/mcp-status.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import {
  canMakePeer,
  hostAddresses,
  listenOnEveryAddress,
  startPeerListener,
} from "../support/host-listeners.js";
import {
  isProcessAlive as alive,
  filesystemServerConfig,
  probeServerConfig,
  processesIn,
  testServerConfig,
} from "../support/mcp/servers.js";
import { weirdToolName } from "../support/mcp/test-tools.js";
import type { ProbeReport, ProbeRequest } from "../support/network-probe.mjs";
import { type UnprivilegedUser, unprivilegedUser } from "../support/unprivileged-user.js";
import { DaemonHarness, type HistoryEntry, type ProviderProfileConfig } from "./support/daemon-harness.js";
import { eventually, toolResultText, useFakeProvider } from "./support/fixture.js";

const protocols = ["chat_completions", "responses", "anthropic", "gemini"] as const;

describe("MCP servers through the daemon", () => {
  const fake = useFakeProvider();

  function profiles(): Record<string, ProviderProfileConfig> {
    return Object.fromEntries(
      protocols.map((protocol) => [
        protocol,
        {
          protocol,
          baseUrl:
            protocol === "chat_completions" || protocol === "responses"
              ? fake.provider.baseUrlWith("v1")
              : fake.provider.baseUrl,
          apiKey: "fixture-key",
          model: "fixture-model",
        },
      ]),
    );
  }

  async function daemon(
    mcpServers: Record<string, unknown>,
    user?: UnprivilegedUser,
  ): Promise<DaemonHarness> {
    return fake.daemon({ providers: profiles(), mcpServers, ...(user ? { user } : {}) });
  }

  /** A turn in which the model calls the probe server's tool with `request`; the session's history. */
  async function probeTurn(app: DaemonHarness, request: ProbeRequest): Promise<HistoryEntry[]> {
    fake.provider.queue(
      toolCalls([{ name: "probe__probe", args: request, id: "call_probe" }]),
      text("probed"),
    );
    const sessionId = await app.createSession();
    await app.turn(sessionId, "probe");
    return (await app.history(sessionId)).items;
  }

  it("lists configured servers, starts one on request, and runs an MCP tool in a turn of each protocol", async () => {
    const app = await daemon({ test: testServerConfig() });
    const before = (await app.api("/mcp")).json<McpStatus>();
    expect(before).toEqual({
      servers: [
        {
          name: "test",
          transport: "stdio",
          target: expect.stringContaining("stdio-server.ts"),
          scope: "daemon",
          instances: [],
        },
      ],
      config_error: null,
    });
    const tested = await app.api("/mcp/test/test", { method: "POST", body: {} });
    expect(tested.status).toBe(200);
    const report = tested.json<McpTestReport>();
    expect(report).toMatchObject({ name: "test", ok: true, instance: { state: "ready", last_error: null } });
    const weird = report.instance.tools.find((tool) => tool.mcp_name === weirdToolName)!.name;
    expect(weird).toMatch(/^test__lookup_item_v2_by-id_[0-9a-f]{8}$/);

    for (const protocol of protocols) {
      fake.provider.reset();
      fake.provider.queue(
        toolCalls([{ name: weird, args: { id: `it-${protocol}` }, id: `call_${protocol}` }]),
        text("found it"),
      );
      const sessionId = await app.createSession({ provider_profile: protocol });
      await app.turn(sessionId, "look up the item");
      const history = (await app.history(sessionId)).items;
      expect(
        history.map((entry) => entry.kind),
        protocol,
      ).toEqual(["user", "tool_call", "tool_result", "assistant"]);
      expect(history[2]!.tool).toMatchObject({ name: weird, is_error: false });
      expect(toolResultText(history[2])).toBe(`item it-${protocol}`);
      expect(fake.provider.requests, protocol).toHaveLength(2);
      const offered = fake.provider.requests[0]!.rawBody;
      expect(offered).toContain(JSON.stringify(weird));
      if (protocol === "gemini") expect(offered).not.toContain("$ref");
      else expect(offered).toContain('"$ref":"#/$defs/ItemId"');
      expect(fake.provider.requests[1]!.rawBody).toContain(`item it-${protocol}`);
    }
    // One server process served every session.
    const after = (await app.api("/mcp")).json<McpStatus>();
    expect(after.servers[0]!.instances).toHaveLength(1);
    expect(after.servers[0]!.instances[0]).toMatchObject({ state: "ready", restarts: 0 });
  });

  it("gives a session only the servers it selected, and refuses one that is not configured", async () => {
    const app = await daemon({ test: testServerConfig(), fs: filesystemServerConfig() });
    const refused = await app.api(`/sessions/${uuidv7()}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: app.workspace, mcp_servers: ["nope"] },
    });
    expect(refused.status).toBe(400);
    expect(refused.json()).toMatchObject({
      detail: 'MCP server "nope" is not configured (configured: test, fs)',
    });

    writeFileSync(join(app.workspace, "notes.txt"), "from the filesystem server");
    fake.provider.queue(
      toolCalls([
        { name: "fs__read_text_file", args: { path: join(app.workspace, "notes.txt") }, id: "call_fs" },
      ]),
      text("read it"),
    );
    const onlyFs = await app.createSession({ mcp_servers: ["fs"] });
    await app.turn(onlyFs, "read notes.txt");
    const names = (
      (fake.provider.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools ?? []
    ).map((tool) => tool.function.name);
    expect(names).toContain("fs__read_text_file");
    expect(names.some((name) => name.startsWith("test__"))).toBe(false);
    expect(toolResultText((await app.history(onlyFs)).items[2])).toBe("from the filesystem server");

    fake.provider.reset();
    const none = await app.createSession({ mcp_servers: [] });
    await app.turn(none, "hi");
    const plain = (fake.provider.requests[0]!.body as { tools: Array<{ function: { name: string } }> }).tools;
    expect(plain.every((tool) => !tool.function.name.includes("__"))).toBe(true);
  });

  it("reports servers that exit at once or write garbage, while the daemon and the turn go on with the others", async () => {
    const app = await daemon({
      exits: { command: "sh", args: ["-c", "echo 'missing API token' >&2; exit 1"] },
      garbage: { command: "sh", args: ["-c", "echo '<html>not a server</html>'; sleep 60"] },
      test: testServerConfig(),
    });
    fake.provider.queue(
      toolCalls([{ name: "test__echo", args: { text: "still works" }, id: "call_echo" }]),
      text("done"),
    );
    const sessionId = await app.createSession();
    await app.turn(sessionId, "echo something");
    expect(toolResultText((await app.history(sessionId)).items[2])).toBe("still works");
    const status = (await app.api("/mcp")).json<McpStatus>();
    const byName = Object.fromEntries(status.servers.map((server) => [server.name, server.instances[0]]));
    expect(byName.exits?.state).toBe("failed");
    expect(byName.exits?.last_error?.message).toMatch(
      /exited with code 1 before it was ready.*missing API token/s,
    );
    expect(byName.garbage?.last_error?.message).toMatch(
      /not JSON-RPC on stdout \("<html>not a server<\/html>"\)/,
    );
    expect(byName.test?.state).toBe("ready");
    expect((await app.api("/server")).json()).toMatchObject({ state: "ready" });
  });

  it("never runs an MCP call again after SIGKILL cut it: the result is unknown and the server's group is gone", async () => {
    const marker = "marker.txt";
    const app = await daemon({ test: testServerConfig(["--pid-file", "pids.txt"], { cwd: "${workspace}" }) });
    const sessionId = await app.createSession();
    fake.provider.queue(
      toolCalls([
        { name: "test__slow", args: { ms: 60_000, marker: join(app.workspace, marker) }, id: "call_slow" },
      ]),
    );
    fake.provider.script = () => text("I will not call it again.");
    const inputId = uuidv7();
    await app.prompt(sessionId, "wait a minute", inputId);
    const markerPath = join(app.workspace, marker);
    await eventually("the MCP call to start", () => (existsSync(markerPath) ? true : undefined));
    // The server runs in the daemon's sandbox (its own PID namespace): find it by its cwd.
    const serverPids = processesIn(app.workspace);
    expect(serverPids.length).toBeGreaterThan(0);

    await app.kill();
    // The server sees its stdin close (or bwrap's parent die) and ends with the daemon.
    await eventually("the orphaned server to exit", () => (serverPids.some(alive) ? undefined : true));
    await app.boot();
    await app.idle(sessionId);

    const history = (await app.history(sessionId)).items;
    expect(history.map((entry) => entry.kind)).toEqual([
      "user",
      "tool_call",
      "tool_result",
      "note",
      "assistant",
    ]);
    expect(history[2]!.tool).toMatchObject({ name: "test__slow", is_error: true });
    expect(toolResultText(history[2])).toMatch(/outcome is unknown/);
    expect((await app.receipt(sessionId, inputId)).turn?.state).toBe("abandoned");
    // The call ran once, and only once.
    expect(readFileSync(markerPath, "utf8")).toBe("started\n");
  });

  it("keeps a sandboxed server with the network on away from the host's services, its /tmp, the user's home and other workspaces", async () => {
    const listener = await listenOnEveryAddress();
    try {
      const app = await daemon({ probe: probeServerConfig({ cwd: "${workspace}" }) });
      // Another session's workspace under the host's /tmp, with something in it.
      const other = join(app.root, "other-workspace");
      mkdirSync(other);
      writeFileSync(join(other, "secret.txt"), "another session's file");
      const hostTmp = `/tmp/skein-probe-${uuidv7()}`;
      const providerPort = Number(new URL(fake.provider.baseUrl).port);
      const request: ProbeRequest = {
        tcp: [
          ...hostAddresses().map((host) => ({ host, port: listener.port })),
          { host: "127.0.0.1", port: app.port },
          { host: "127.0.0.1", port: providerPort },
          { host: "127.0.0.1", port: 5432 },
        ],
        write: [
          join(app.root, ".bashrc"),
          join(other, "planted.txt"),
          hostTmp,
          join(app.workspace, "allowed.txt"),
          "$HOME/cache.txt",
        ],
        read: [join(other, "secret.txt"), join(app.home, "config.json"), "/etc/hostname"],
      };
      const history = await probeTurn(app, request);
      expect(history[2]!.tool).toMatchObject({ name: "probe__probe", is_error: false });
      const report = JSON.parse(toolResultText(history[2])) as ProbeReport;

      // No service of the host answers: not the listener on any of its addresses, not the daemon, the fake provider or PostgreSQL.
      expect(Object.keys(report.tcp)).toHaveLength(request.tcp!.length);
      for (const [target, outcome] of Object.entries(report.tcp)) expect(outcome, target).not.toBe("open");
      // Writable: its workspace and its own HOME (the server's directory in the daemon's home), nothing else.
      expect(report.write[join(app.workspace, "allowed.txt")]).toBe("written");
      expect(report.write["$HOME/cache.txt"]).toBe("written");
      const ownDirectory = join(app.home, "mcp", "probe");
      expect(readFileSync(join(ownDirectory, "cache.txt"), "utf8")).toBe("written by the probe\n");
      expect(statSync(ownDirectory).mode & 0o777).toBe(0o700);
      // The daemon's user's home (the harness's root, under /tmp) is not the server's HOME and
      // not writable: a write there lands in the private /tmp, never on the host.
      expect(report.env.HOME).not.toBe(app.root);
      expect(existsSync(join(app.root, ".bashrc"))).toBe(false);
      expect(report.write[join(other, "planted.txt")]).not.toBe("written");
      expect(existsSync(join(other, "planted.txt"))).toBe(false);
      // Its /tmp is private: the write stays there, the host's /tmp never sees it.
      expect(report.write[hostTmp]).toBe("written");
      expect(existsSync(hostTmp)).toBe(false);
      // Reads: another workspace under the host's /tmp and the daemon's home are not there; the host's system is.
      expect(report.read[join(other, "secret.txt")]).toBe("ENOENT");
      expect(report.read[join(app.home, "config.json")]).not.toContain("fixture-key");
      expect(report.read["/etc/hostname"]).toBe(readFileSync("/etc/hostname", "utf8"));
    } finally {
      await listener.close();
    }
  });

  const nobody = unprivilegedUser();
  it.skipIf(nobody === null || !canMakePeer())(
    "starts a server with the network on for a daemon run as an unprivileged user: it reaches a machine on the network, no service of the host",
    async () => {
      const user = nobody as UnprivilegedUser;
      const listener = await listenOnEveryAddress();
      const peer = await startPeerListener();
      try {
        const app = await daemon({ probe: probeServerConfig({ cwd: "${workspace}" }) }, user);
        const blocked = [
          ...hostAddresses().map((host) => ({ host, port: listener.port })),
          { host: "127.0.0.1", port: app.port },
          ...["10.0.2.2", "10.0.2.3", "169.254.169.254", peer.hostAddress].map((host) => ({
            host,
            port: listener.port,
          })),
        ];
        const request: ProbeRequest = {
          tcp: [{ host: peer.address, port: peer.port }, ...blocked],
          write: [join(app.workspace, "allowed.txt")],
        };
        const history = await probeTurn(app, request);
        expect(history[2]!.tool, toolResultText(history[2])).toMatchObject({
          name: "probe__probe",
          is_error: false,
        });
        const report = JSON.parse(toolResultText(history[2])) as ProbeReport;
        expect(report.tcp[`${peer.address}:${peer.port}`]).toBe("open");
        for (const { host, port } of blocked) {
          const key = `${host.includes(":") ? `[${host}]` : host}:${port}`;
          expect(report.tcp[key], key).toMatch(/^(EACCES|ECONNREFUSED|ENETUNREACH|EHOSTUNREACH|timeout)$/);
        }
        // The daemon and its server ran as that user: what the server wrote is the user's on the host.
        expect(statSync(join(app.workspace, "allowed.txt")).uid).toBe(user.uid);
        expect(statSync(join(app.home, "mcp", "probe")).uid).toBe(user.uid);
        const status = (await app.api("/mcp")).json<McpStatus>();
        expect(status.servers[0]?.instances[0]).toMatchObject({ state: "ready", last_error: null });
      } finally {
        peer.close();
        await listener.close();
      }
    },
    60_000,
  );

  it("stops its MCP servers with their process groups when the daemon shuts down", async () => {
    const app = await daemon({
      test: testServerConfig(["--pid-file", "pids.txt", "--grandchild"], { cwd: "${workspace}" }),
    });
    fake.provider.queue(
      toolCalls([{ name: "test__echo", args: { text: "x" }, id: "call_echo" }]),
      text("done"),
    );
    const sessionId = await app.createSession();
    await app.turn(sessionId, "echo");
    // Two pids in the server's own namespace (server and grandchild): find them on the host by cwd.
    expect(readFileSync(join(app.workspace, "pids.txt"), "utf8").trim().split("\n")).toHaveLength(2);
    const pids = processesIn(app.workspace);
    expect(pids.length).toBeGreaterThanOrEqual(2);
    expect(await app.shutdown()).toBe(0);
    await eventually("the server's group to be gone", () => (pids.some(alive) ? undefined : true), 5_000);
  });
});

describe("project instructions through the daemon", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    app = await DaemonHarness.start({
      providers: {
        fixture: {
          protocol: "chat_completions",
          baseUrl: provider.baseUrlWith("v1"),
          apiKey: "k",
          model: "fixture-model",
        },
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  async function sessionStart(sessionId: string): Promise<Record<string, unknown>> {
    const [row] = await app.sql<{ entry: string }>(
      "SELECT entry FROM transcript WHERE session = ? AND position = 0",
      [sessionId],
    );
    return JSON.parse(row!.entry) as Record<string, unknown>;
  }

  function systemPromptSent(): string {
    const messages = (provider.lastRequest.body as { messages: Array<{ role: string; content: unknown }> })
      .messages;
    const system = messages.find((message) => message.role === "system");
    return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
  }

  it("adds the repository's AGENTS.md to the system prompt and records it in session_start", async () => {
    const repo = join(app.root, "repo");
    const workspace = join(repo, "packages", "web");
    mkdirSync(join(repo, ".git"), { recursive: true });
    mkdirSync(workspace, { recursive: true });
    writeFileSync(join(repo, "AGENTS.md"), "Run the tests with `make check` before you answer.\n");
    const sessionId = await app.createSession({ workspace });
    await app.turn(sessionId, "hi");
    expect(systemPromptSent()).toContain(
      `The project's instructions for agents, from ${join(repo, "AGENTS.md")}:\n\nRun the tests with \`make check\` before you answer.\n`,
    );
    const start = await sessionStart(sessionId);
    expect(start.instructions).toEqual({ path: join(repo, "AGENTS.md"), bytes: 51, truncated: false });
    expect(start.system_prompt).toContain("make check");
  });

  it("caps a large CLAUDE.md and says so", async () => {
    const workspace = join(app.root, "big");
    mkdirSync(workspace);
    writeFileSync(join(workspace, "CLAUDE.md"), "z".repeat(100_000));
    const sessionId = await app.createSession({ workspace });
    await app.turn(sessionId, "hi");
    const prompt = systemPromptSent();
    expect(prompt).toContain(
      `${"z".repeat(32 * 1024)}\n\n[... the file is 100000 bytes; only its first 32768 are shown]`,
    );
    expect(prompt).not.toContain("z".repeat(32 * 1024 + 1));
    expect((await sessionStart(sessionId)).instructions).toEqual({
      path: join(workspace, "CLAUDE.md"),
      bytes: 100_000,
      truncated: true,
    });
  });

  it("adds nothing, and records nothing, for a workspace without instructions", async () => {
    const sessionId = await app.createSession();
    await app.turn(sessionId, "hi");
    expect(systemPromptSent()).not.toContain("instructions for agents");
    expect(await sessionStart(sessionId)).not.toHaveProperty("instructions");
  });
});
