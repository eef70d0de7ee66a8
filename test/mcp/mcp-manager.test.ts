// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} and ${env:NAME} are config placeholders, not template slips
/**
 * The MCP manager against real servers run as child processes: the npm filesystem server, the
 * SDK-built stdio and Streamable HTTP test servers, the SDK's own example server, and broken
 * commands. Listing, calls, error results, a crash mid-call and the restart, list_changed,
 * timeouts, bad servers, the environment a server gets, config edits and process-group shutdown.
 */
import { getEventListeners } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { McpServersConfig } from "../../src/home/mcp-config.js";
import { McpManager } from "../../src/mcp/mcp-manager.js";
import type { McpSandbox } from "../../src/mcp/server-sandbox.js";
import { portableToolName } from "../../src/mcp/tool-name.js";
import type { Tool, ToolDefinition, ToolOutput } from "../../src/model/tools.js";
import { DEFAULT_BWRAP_PATH, probeBwrap } from "../../src/tools/bubblewrap.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { type NetworkHelperProbe, probeNetworkHelper } from "../../src/tools/network-helper.js";
import { socketFilterFor } from "../../src/tools/socket-filter.js";
import { eventually } from "../support/eventually.js";
import { freePort } from "../support/free-port.js";
import {
  isProcessAlive as alive,
  filesystemServerConfig,
  type RunningHttpServer,
  startHttpTestServer,
  startSdkExampleServer,
  testServerConfig,
} from "../support/mcp/servers.js";
import { longToolName, weirdToolName } from "../support/mcp/test-tools.js";

const quietLogger = { info: () => {}, warn: () => {} };

interface Fixture {
  manager: McpManager;
  workspace: string;
  servers: McpServersConfig;
}

const cleanups: Array<() => Promise<void> | void> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function fixture(
  servers: McpServersConfig,
  env: NodeJS.ProcessEnv = process.env,
  sandbox: McpSandbox | null = null,
): Fixture {
  const workspace = mkdtempSync(join(tmpdir(), "skein-mcp-"));
  const state: Fixture = {
    workspace,
    servers,
    manager: new McpManager({
      config: () => ({ servers: state.servers, error: null }),
      env,
      sandbox,
      clientVersion: "0.0.0-test",
      logger: quietLogger,
      now: () => Date.now(),
    }),
  };
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  cleanups.push(() => state.manager.stop());
  return state;
}

/** The tools by name, materialised as the Worker would. */
async function toolsOf(
  fixture: Fixture,
  names: string[],
): Promise<Map<string, { tool: Tool; schema: unknown }>> {
  const definitions: ToolDefinition[] = await fixture.manager.toolsFor(names, fixture.workspace);
  return new Map(
    definitions.map((definition) => {
      const { meta, tool } = definition();
      return [meta.name, { tool, schema: meta.input_schema }];
    }),
  );
}

async function call(
  tools: Map<string, { tool: Tool }>,
  name: string,
  args: object = {},
): Promise<ToolOutput> {
  const entry = tools.get(name);
  if (entry === undefined) throw new Error(`no tool ${name}; have ${[...tools.keys()].join(", ")}`);
  return entry.tool.execute(JSON.stringify(args), { call_id: "c1", signal: new AbortController().signal });
}

function outputText(output: ToolOutput): string {
  return typeof output === "string" ? output : output.output;
}

function isError(output: ToolOutput): boolean {
  return typeof output !== "string" && output.is_error === true;
}

describe("the MCP manager", () => {
  it("lists and calls the npm filesystem server's tools, confined to the session's workspace", async () => {
    const f = fixture({ fs: filesystemServerConfig() });
    writeFileSync(join(f.workspace, "notes.txt"), "hello from the workspace\n");
    const tools = await toolsOf(f, ["fs"]);
    expect([...tools.keys()]).toEqual(expect.arrayContaining(["fs__read_text_file", "fs__list_directory"]));
    for (const name of tools.keys()) expect(name).toMatch(portableToolName);
    const read = await call(tools, "fs__read_text_file", { path: join(f.workspace, "notes.txt") });
    expect(outputText(read)).toBe("hello from the workspace\n");
    const outside = await call(tools, "fs__read_text_file", { path: "/etc/hostname" });
    expect(isError(outside)).toBe(true);
    expect(outputText(outside)).toMatch(/outside allowed directories|Access denied/i);
    const status = f.manager.status().servers[0]!;
    expect(status).toMatchObject({ name: "fs", transport: "stdio", scope: "workspace" });
    expect(status.instances).toEqual([
      expect.objectContaining({ workspace: f.workspace, state: "ready", restarts: 0, last_error: null }),
    ]);
  });

  it("names every tool portably (odd and overlong names get a stable hash), keeps $ref schemas and maps results", async () => {
    const f = fixture({ test: testServerConfig() });
    const tools = await toolsOf(f, ["test"]);
    const names = [...tools.keys()];
    for (const name of names) expect(name).toMatch(portableToolName);
    expect(names).toEqual(expect.arrayContaining(["test__echo", "test__fail", "test__picture"]));
    const weird = names.find((name) => name.startsWith("test__lookup_item_v2_by-id_"));
    const long = names.find((name) => name.startsWith("test__a_tool_whose_name"));
    expect(weird).toBeDefined();
    expect(long).toHaveLength(64);
    const instance = f.manager.status().servers[0]!.instances[0]!;
    expect(instance.tools.find((tool) => tool.name === weird)?.mcp_name).toBe(weirdToolName);
    expect(instance.tools.find((tool) => tool.name === long)?.mcp_name).toBe(longToolName);
    expect(tools.get(weird!)!.schema).toMatchObject({
      type: "object",
      $defs: { ItemId: { type: "string" } },
      properties: { id: { $ref: "#/$defs/ItemId" } },
    });

    expect(await call(tools, "test__echo", { text: "hi" })).toBe("hi");
    expect(await call(tools, weird!, { id: "it-1" })).toBe("item it-1");
    expect(await call(tools, long!)).toBe("long name works");
    expect(await call(tools, "test__fail")).toEqual({ output: "it failed on purpose", is_error: true });
    expect(outputText(await call(tools, "test__picture"))).toBe(
      "[image image/png, 16 bytes, not shown: tool results reach the model as text]\na caption",
    );
    const big = outputText(await call(tools, "test__big", { bytes: 200_000 }));
    expect(big).toMatch(/\[\.\.\. output truncated: \d+ bytes omitted \.\.\.\]/);
    expect(Buffer.byteLength(big)).toBeLessThan(70_000);
  });

  it("answers a call cut by a crash with an error result, restarts the server with backoff, and serves the next call", async () => {
    const f = fixture({ test: testServerConfig() });
    const tools = await toolsOf(f, ["test"]);
    const marker = join(f.workspace, "marker");
    const crashed = await call(tools, "test__crash", { marker });
    expect(isError(crashed)).toBe(true);
    expect(outputText(crashed)).toMatch(/stopped during the call \(the server exited with code 3/);
    expect(outputText(crashed)).toMatch(/about to crash on purpose/);
    expect(outputText(crashed)).toMatch(/not retried/);
    expect(readFileSync(marker, "utf8")).toBe("crashed\n");
    const restarted = await eventually("the restart", () => {
      const instance = f.manager.status().servers[0]!.instances[0]!;
      return instance.state === "ready" && instance.restarts === 1 ? instance : undefined;
    });
    expect(restarted.last_error?.message).toMatch(/exited with code 3/);
    expect(await call(tools, "test__echo", { text: "after" })).toBe("after");
    // The crashed call was never run again.
    expect(readFileSync(marker, "utf8")).toBe("crashed\n");
  });

  it("leaves no listener on the turn's signal after its calls, so aborting it later cancels nothing", async () => {
    const f = fixture({ test: testServerConfig() });
    const tools = await toolsOf(f, ["test"]);
    const turn = new AbortController();
    for (let index = 0; index < 20; index++) {
      await tools
        .get("test__echo")!
        .tool.execute(`{"text":"${index}"}`, { call_id: `c${index}`, signal: turn.signal });
    }
    expect(getEventListeners(turn.signal, "abort")).toHaveLength(0);
  });

  it("refreshes the tool list on list_changed", async () => {
    const f = fixture({ test: testServerConfig() });
    const tools = await toolsOf(f, ["test"]);
    expect(tools.has("test__extra")).toBe(false);
    expect(await call(tools, "test__add_tool")).toBe("added");
    await eventually("the new tool", () =>
      f.manager.status().servers[0]!.instances[0]!.tools.some((tool) => tool.name === "test__extra")
        ? true
        : undefined,
    );
    const next = await toolsOf(f, ["test"]);
    expect(await call(next, "test__extra")).toBe("extra works");
  });

  it("gives up on a call after the server's timeout without stopping the server", async () => {
    const f = fixture({ test: testServerConfig([], { timeoutMs: 300 }) });
    const tools = await toolsOf(f, ["test"]);
    const started = Date.now();
    const slow = await call(tools, "test__slow", { ms: 10_000 });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(slow).toEqual({
      output: 'MCP server "test", tool "slow": no answer within 300 ms; the call was cancelled',
      is_error: true,
    });
    expect(await call(tools, "test__echo", { text: "still here" })).toBe("still here");
  });

  it("reports a server that exits at once, one that writes garbage on stdout, and a missing command, and offers their tools to no one", async () => {
    const f = fixture({
      exits: { command: "sh", args: ["-c", "echo 'cannot start: no config' >&2; exit 2"] },
      garbage: { command: "sh", args: ["-c", "echo 'hello, I am not JSON-RPC'; sleep 30"] },
      missing: { command: "/nonexistent/mcp-server" },
      test: testServerConfig(),
    });
    const started = Date.now();
    const tools = await toolsOf(f, ["exits", "garbage", "missing", "test"]);
    // Garbage is a failure at once, not a wait for the 30 s startup timeout.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([...tools.keys()].every((name) => name.startsWith("test__"))).toBe(true);
    const byName = Object.fromEntries(
      f.manager.status().servers.map((server) => [server.name, server.instances[0]]),
    );
    expect(byName.exits).toMatchObject({ state: "failed" });
    expect(byName.exits?.last_error?.message).toMatch(
      /exited with code 2 before it was ready.*cannot start: no config/s,
    );
    expect(byName.garbage?.last_error?.message).toMatch(
      /not JSON-RPC on stdout \("hello, I am not JSON-RPC"\)/,
    );
    expect(byName.missing?.last_error?.message).toMatch(/cannot run "\/nonexistent\/mcp-server": .*ENOENT/);
    // Within the backoff a failed server is not spawned again; `test` ignores the backoff.
    const again = Date.now();
    expect(await f.manager.toolsFor(["exits"], f.workspace)).toEqual([]);
    expect(Date.now() - again).toBeLessThan(200);
    const report = await f.manager.test("exits", null);
    expect(report).toMatchObject({ name: "exits", ok: false });
    expect(report.instance.last_error?.message).toMatch(/exited with code 2/);
  });

  it("gives a stdio server only a few harmless variables and those its config names", async () => {
    const env = {
      ...process.env,
      SKEIN_TOKEN: "secret-token",
      OPENAI_API_KEY: "sk-secret",
      SHARED_KEY: "shared",
    };
    const f = fixture(
      { test: testServerConfig([], { env: { FROM_DAEMON: "${env:SHARED_KEY}", LITERAL: "x" } }) },
      env,
    );
    const tools = await toolsOf(f, ["test"]);
    const { names } = JSON.parse(outputText(await call(tools, "test__env"))) as { names: string[] };
    expect(names).toEqual(expect.arrayContaining(["FROM_DAEMON", "LITERAL", "PATH"]));
    expect(names).not.toContain("SKEIN_TOKEN");
    expect(names).not.toContain("OPENAI_API_KEY");
    expect(names).not.toContain("SHARED_KEY");
  });

  it("reports a ${env:NAME} the daemon does not have", async () => {
    const f = fixture({ test: testServerConfig([], { env: { KEY: "${env:SKEIN_TEST_NOT_SET}" } }) });
    expect(await f.manager.toolsFor(["test"], f.workspace)).toEqual([]);
    expect(f.manager.status().servers[0]!.instances[0]!.last_error?.message).toBe(
      'MCP server "test" reads ${env:SKEIN_TEST_NOT_SET} in "env"."KEY", which is not set in the daemon\'s environment',
    );
  });

  it("stops a server's whole process group, and stops a server whose config changed", async () => {
    const f = fixture({ test: testServerConfig() });
    const pidFile = join(f.workspace, "pids");
    f.servers = { test: testServerConfig(["--pid-file", pidFile, "--grandchild"]) };
    await toolsOf(f, ["test"]);
    const [server, grandchild] = readFileSync(pidFile, "utf8").trim().split("\n").map(Number) as [
      number,
      number,
    ];
    expect(alive(server) && alive(grandchild)).toBe(true);
    f.servers = { test: testServerConfig(["--pid-file", `${pidFile}.2`]) };
    await toolsOf(f, ["test"]);
    await eventually("the old group to be gone", () =>
      !alive(server) && !alive(grandchild) ? true : undefined,
    );
    const [second] = readFileSync(`${pidFile}.2`, "utf8").trim().split("\n").map(Number) as [number];
    await f.manager.stop();
    expect(alive(second)).toBe(false);
    expect(await f.manager.toolsFor(["test"], f.workspace)).toEqual([]);
  });

  it("shares one instance of a server between sessions, and one per workspace when its config uses ${workspace}", async () => {
    const f = fixture({
      shared: testServerConfig(),
      perWorkspace: testServerConfig([], { cwd: "${workspace}" }),
    });
    const other = mkdtempSync(join(tmpdir(), "skein-mcp-other-"));
    cleanups.push(() => rmSync(other, { recursive: true, force: true }));
    await f.manager.toolsFor(["shared", "perWorkspace"], f.workspace);
    const tools = await f.manager.toolsFor(["shared", "perWorkspace"], other);
    const status = Object.fromEntries(f.manager.status().servers.map((server) => [server.name, server]));
    expect(status.shared?.instances).toHaveLength(1);
    expect(status.perWorkspace?.instances.map((instance) => instance.workspace).sort()).toEqual(
      [f.workspace, other].sort(),
    );
    const env = tools
      .map((definition) => definition())
      .find((entry) => entry.meta.name === "perWorkspace__env")!;
    const output = await env.tool.execute("{}", { call_id: "c", signal: new AbortController().signal });
    expect(JSON.parse(outputText(output)).cwd).toBe(other);
  });
});

describe("the MCP manager with the daemon's sandbox", () => {
  const usable = probeBwrap(DEFAULT_BWRAP_PATH, socketFilterFor());

  /** A workspace that holds a daemon home with an API key in it, the home hidden. */
  function sandboxed(
    servers: McpServersConfig,
    network: NetworkHelperProbe = probeNetworkHelper(),
  ): { f: Fixture; home: string } {
    const f = fixture(servers);
    const home = join(f.workspace, "skein-home");
    mkdirSync(home, { mode: 0o700 });
    writeFileSync(join(home, "config.json"), '{"providers":{"p":{"apiKey":"sk-very-secret"}}}\n');
    const sandbox: McpSandbox = {
      bwrapPath: DEFAULT_BWRAP_PATH,
      filter: socketFilterFor(),
      hidden: resolveHiddenPaths([home]),
      stateRoot: join(home, "mcp"),
      network,
    };
    f.manager = new McpManager({
      config: () => ({ servers: f.servers, error: null }),
      env: process.env,
      sandbox,
      clientVersion: "0.0.0-test",
      logger: quietLogger,
      now: () => Date.now(),
    });
    cleanups.push(() => f.manager.stop());
    return { f, home };
  }

  it.skipIf(!usable.usable)(
    "runs the npm filesystem server with the daemon's home hidden, even inside the workspace it serves",
    async () => {
      const { f, home } = sandboxed({ fs: filesystemServerConfig() });
      writeFileSync(join(f.workspace, "notes.txt"), "visible\n");
      const tools = await toolsOf(f, ["fs"]);
      expect(
        outputText(await call(tools, "fs__read_text_file", { path: join(f.workspace, "notes.txt") })),
      ).toBe("visible\n");
      const secret = await call(tools, "fs__read_text_file", { path: join(home, "config.json") });
      expect(isError(secret)).toBe(true);
      expect(outputText(secret)).not.toContain("sk-very-secret");
      const planted = await call(tools, "fs__write_file", { path: join(home, "config.json"), content: "{}" });
      expect(isError(planted)).toBe(true);
      expect(readFileSync(join(home, "config.json"), "utf8")).toContain("sk-very-secret");
      // The workspace stays writable.
      const written = await call(tools, "fs__write_file", {
        path: join(f.workspace, "out.txt"),
        content: "ok",
      });
      expect(isError(written)).toBe(false);
      expect(readFileSync(join(f.workspace, "out.txt"), "utf8")).toBe("ok");
      expect(f.manager.status().servers[0]!.instances[0]).toMatchObject({ state: "ready" });
    },
  );

  it.skipIf(!usable.usable)(
    'lets a server that opts out with "sandbox": false read what the sandbox hides',
    async () => {
      const { f, home } = sandboxed({ fs: { ...filesystemServerConfig(), sandbox: false } });
      const tools = await toolsOf(f, ["fs"]);
      expect(
        outputText(await call(tools, "fs__read_text_file", { path: join(home, "config.json") })),
      ).toContain("sk-very-secret");
    },
  );

  it.skipIf(!usable.usable)(
    "refuses to start a server with the network on when the helper is missing, saying what to do, and never gives it the host's network",
    async () => {
      const missing: NetworkHelperProbe = { usable: false, reason: "slirp4netns not found" };
      const { f } = sandboxed(
        { net: testServerConfig(), offline: testServerConfig([], { network: false }) },
        missing,
      );
      const tools = await f.manager.toolsFor(["net", "offline"], f.workspace);
      expect(tools.map((definition) => definition().meta.name)).toContain("offline__echo");
      const byName = Object.fromEntries(f.manager.status().servers.map((server) => [server.name, server]));
      expect(byName.net?.instances[0]).toMatchObject({ state: "failed" });
      expect(byName.net?.instances[0]?.last_error?.message).toMatch(
        /cannot give this server a network \(slirp4netns not found\); set "network": false .* or install slirp4netns/,
      );
    },
  );

  it.skipIf(!usable.usable)(
    "starts a server through npx from a local package, its npm cache in the server's own directory",
    async () => {
      const { f, home } = sandboxed({
        npxfs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "${workspace}"] },
      });
      writeFileSync(join(f.workspace, "notes.txt"), "through npx\n");
      const tools = await toolsOf(f, ["npxfs"]);
      expect(
        outputText(await call(tools, "npxfs__read_text_file", { path: join(f.workspace, "notes.txt") })),
      ).toBe("through npx\n");
      expect(existsSync(join(home, "mcp", "npxfs", ".npm"))).toBe(true);
    },
  );

  it.skipIf(!usable.usable)(
    "keeps the environment rules and the server's tools working inside the sandbox",
    async () => {
      const { f } = sandboxed({ test: testServerConfig([], { env: { LITERAL: "x" }, network: false }) });
      const tools = await toolsOf(f, ["test"]);
      const { names } = JSON.parse(outputText(await call(tools, "test__env"))) as { names: string[] };
      expect(names).toEqual(expect.arrayContaining(["LITERAL", "PATH"]));
      expect(names).not.toContain("SKEIN_TOKEN");
    },
  );
});

describe("the MCP manager over Streamable HTTP", () => {
  let server: RunningHttpServer | null = null;
  afterEach(async () => {
    await server?.kill();
    server = null;
  });

  it("calls a server that needs a header, gets list_changed, and reconnects after the server restarts", async () => {
    const port = await freePort();
    const args = ["--port", String(port), "--require-header", "x-api-key=k-123"];
    server = await startHttpTestServer(args);
    const f = fixture(
      { remote: { url: server.url, headers: { "x-api-key": "${env:REMOTE_KEY}" } } },
      { ...process.env, REMOTE_KEY: "k-123" },
    );
    const tools = await toolsOf(f, ["remote"]);
    expect(await call(tools, "remote__echo", { text: "over http" })).toBe("over http");
    expect(await call(tools, "remote__fail")).toEqual({ output: "it failed on purpose", is_error: true });
    expect(await call(tools, "remote__add_tool")).toBe("added");
    await eventually("the new tool over http", () =>
      f.manager.status().servers[0]!.instances[0]!.tools.some((tool) => tool.name === "remote__extra")
        ? true
        : undefined,
    );

    await server.kill();
    const lost = await call(tools, "remote__echo", { text: "nobody there" });
    expect(isError(lost)).toBe(true);
    expect(outputText(lost)).toMatch(/connection failed/);
    server = await startHttpTestServer(args);
    const back = await eventually("the reconnect", async () => {
      const output = await call(tools, "remote__echo", { text: "back" });
      return isError(output) ? undefined : output;
    });
    expect(back).toBe("back");
    expect(f.manager.status().servers[0]!.instances[0]!.restarts).toBeGreaterThanOrEqual(1);
  });

  it("reports a refused header as a failed start", async () => {
    server = await startHttpTestServer(["--require-header", "x-api-key=k-123"]);
    const f = fixture({ remote: { url: server.url, headers: { "x-api-key": "wrong" } } });
    expect(await f.manager.toolsFor(["remote"], f.workspace)).toEqual([]);
    expect(f.manager.status().servers[0]!.instances[0]!.last_error?.message).toMatch(/401|missing header/);
  });

  it("uses the SDK's own example Streamable HTTP server", async () => {
    server = await startSdkExampleServer();
    const f = fixture({ example: { url: server.url } });
    const tools = await toolsOf(f, ["example"]);
    expect([...tools.keys()]).toEqual(expect.arrayContaining(["example__greet", "example__multi-greet"]));
    expect(await call(tools, "example__greet", { name: "Skein" })).toBe("Hello, Skein!");
  });
});
