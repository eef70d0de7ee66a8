// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} is a config placeholder
/**
 * How a stdio server is confined: its own directory as HOME (made 0700 under the state root),
 * its cwd and workspace writable, nothing else of the host; the directories of its program
 * under the private /tmp shown read-only; no start with the network on and no helper. The last
 * test runs a real server whose program lives under the host's /tmp through the manager.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { type ResolvedServer, resolveServer } from "../../src/home/mcp-config.js";
import { McpManager } from "../../src/mcp/mcp-manager.js";
import {
  type McpSandbox,
  SANDBOX_HOME_PATHS,
  ServerSandboxError,
  serverConfinement,
} from "../../src/mcp/server-sandbox.js";
import { DEFAULT_BWRAP_PATH, probeBwrap } from "../../src/tools/bubblewrap.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { probeNetworkHelper } from "../../src/tools/network-helper.js";
import { socketFilterFor } from "../../src/tools/socket-filter.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function temporary(base = tmpdir()): string {
  const directory = mkdtempSync(join(base, "skein-server-sandbox-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

function sandboxFor(home: string, network: McpSandbox["network"] = probeNetworkHelper()): McpSandbox {
  return {
    bwrapPath: DEFAULT_BWRAP_PATH,
    filter: socketFilterFor(),
    hidden: resolveHiddenPaths([home]),
    stateRoot: join(home, "mcp"),
    network,
  };
}

function stdio(config: Parameters<typeof resolveServer>[1], workspace: string | null = null) {
  return resolveServer("probe", config, { workspace, env: {} }) as Extract<
    ResolvedServer,
    { transport: "stdio" }
  >;
}

describe("serverConfinement", () => {
  it("makes the server's own directory (0700) its HOME, and writes only its cwd and workspace", () => {
    const home = temporary("/var/tmp");
    const workspace = temporary();
    const server = stdio({ command: "node", args: ["server.js"], cwd: "${workspace}" }, workspace);
    const confinement = serverConfinement(server, sandboxFor(home));
    const own = join(home, "mcp", "probe");
    expect(statSync(own).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "mcp")).mode & 0o777).toBe(0o700);
    expect(confinement?.program.home).toEqual({ hostPath: own, sandboxPath: SANDBOX_HOME_PATHS.run });
    expect(confinement?.environment).toEqual({ HOME: SANDBOX_HOME_PATHS.run, TMPDIR: "/tmp" });
    expect(confinement?.program.writable).toEqual([workspace]);
    expect(confinement?.program.writable).not.toContain("/tmp");
    expect(confinement?.program.cwd).toBe(workspace);
    // Without a cwd it starts in its own directory: the daemon's may be hidden or under the private /tmp.
    expect(serverConfinement(stdio({ command: "node" }), sandboxFor(home))?.program.cwd).toBe(
      SANDBOX_HOME_PATHS.run,
    );
  });

  it("never makes a directory inside the daemon's home writable, whatever the config says", () => {
    const home = temporary("/var/tmp");
    const server = stdio({ command: "node", cwd: home });
    expect(serverConfinement(server, sandboxFor(home))?.program.writable).toEqual([]);
  });

  it("refuses the network when the helper is missing, and starts unconfined only when the config opts out", () => {
    const home = temporary("/var/tmp");
    const missing = { usable: false as const, reason: "slirp4netns not found" };
    expect(() => serverConfinement(stdio({ command: "node" }), sandboxFor(home, missing))).toThrow(
      ServerSandboxError,
    );
    expect(
      serverConfinement(stdio({ command: "node", network: false }), sandboxFor(home, missing))?.program
        .network,
    ).toBeNull();
    expect(
      serverConfinement(stdio({ command: "node", sandbox: false }), sandboxFor(home, missing)),
    ).toBeNull();
  });
});

describe("a server whose program lives under the host's /tmp", () => {
  const usable = probeBwrap(DEFAULT_BWRAP_PATH, socketFilterFor()).usable;

  /** Starts `args` (run by this Node) as a sandboxed server and calls its tool `look`. */
  async function look(args: string[]): Promise<Record<string, string>> {
    const home = temporary("/var/tmp");
    const manager = new McpManager({
      config: () => ({
        servers: { tmp: { command: process.execPath, args, network: false } },
        error: null,
      }),
      env: process.env,
      sandbox: sandboxFor(home),
      clientVersion: "0.0.0-test",
      logger: { info: () => {}, warn: () => {} },
      now: () => Date.now(),
    });
    cleanups.push(() => manager.stop());
    const tools = await manager.toolsFor(["tmp"], temporary());
    expect(manager.status().servers[0]?.instances[0]?.last_error ?? null).toBeNull();
    const { tool } = tools[0]!();
    const output = await tool.execute("{}", { call_id: "c", signal: new AbortController().signal });
    return JSON.parse(typeof output === "string" ? output : output.output) as Record<string, string>;
  }

  it.skipIf(!usable)(
    "runs, reads its own files there, and sees nothing else of the host's /tmp",
    async () => {
      const program = temporary("/tmp");
      const neighbour = temporary("/tmp");
      writeFileSync(join(neighbour, "secret.txt"), "another session's file");
      writeFileSync(join(program, "answer.txt"), "read from beside the program");
      writeFileSync(join(program, "server.mjs"), minimalServer(join(neighbour, "secret.txt")));
      expect(await look([join(program, "server.mjs")])).toEqual({
        beside: "read from beside the program",
        neighbour: "ENOENT",
        wrote: "EROFS",
      });
      expect(readFileSync(join(program, "answer.txt"), "utf8")).toBe("read from beside the program");
    },
  );

  it.skipIf(!usable)(
    "runs from a package checked out there through a loader named by a file:// URL, with the dependencies it names nowhere",
    async () => {
      const project = temporary("/tmp");
      const neighbour = temporary("/tmp");
      writeFileSync(join(neighbour, "secret.txt"), "another session's file");
      const put = (relative: string, text: string) => {
        mkdirSync(join(project, relative, ".."), { recursive: true });
        writeFileSync(join(project, relative), text);
      };
      put("package.json", JSON.stringify({ name: "server", type: "module" }));
      put("node_modules/loader/register.mjs", 'process.env.LOADED_BY = "the loader";\n');
      put(
        "node_modules/dep/package.json",
        JSON.stringify({ name: "dep", type: "module", exports: "./index.js" }),
      );
      put("node_modules/dep/index.js", 'export const answer = "from a dependency";\n');
      put("dist/answer.txt", "read from beside the program");
      put(
        "dist/server.mjs",
        minimalServer(join(neighbour, "secret.txt"), {
          header: 'import { answer } from "dep";',
          fields: "dependency: answer, loader: process.env.LOADED_BY,",
        }),
      );
      const loader = pathToFileURL(join(project, "node_modules/loader/register.mjs")).href;
      expect(await look(["--import", loader, join(project, "dist/server.mjs")])).toEqual({
        beside: "read from beside the program",
        neighbour: "ENOENT",
        wrote: "EROFS",
        dependency: "from a dependency",
        loader: "the loader",
      });
    },
  );
});

/** A stdio MCP server in plain JavaScript (no imports but node's), with one tool `look`. */
function minimalServer(neighbour: string, extra = { header: "", fields: "" }): string {
  return `
${extra.header}
import { readFileSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline";
const here = new URL(".", import.meta.url).pathname;
const attempt = (run) => { try { return run(); } catch (error) { return error.code; } };
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === "initialize") {
    send({ id: request.id, result: { protocolVersion: request.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "tmp", version: "1" } } });
  } else if (request.method === "tools/list") {
    send({ id: request.id, result: { tools: [{ name: "look", inputSchema: { type: "object" } }] } });
  } else if (request.method === "tools/call") {
    const text = JSON.stringify({
      beside: attempt(() => readFileSync(here + "answer.txt", "utf8")),
      neighbour: attempt(() => readFileSync(${JSON.stringify(neighbour)}, "utf8")),
      wrote: attempt(() => writeFileSync(here + "answer.txt", "overwritten")) ?? "written",
      ${extra.fields}
    });
    send({ id: request.id, result: { content: [{ type: "text", text }] } });
  } else {
    send({ id: request.id, error: { code: -32601, message: "unknown method" } });
  }
});
process.stdin.on("end", () => process.exit(0));
`;
}
