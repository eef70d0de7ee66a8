// biome-ignore-all lint/suspicious/noTemplateCurlyInString: ${workspace} and ${env:NAME} are config placeholders, not template slips
/**
 * Real MCP servers for the tests and the benchmark, as `mcpServers` entries or running
 * processes: the test servers of this folder (stdio and Streamable HTTP, run with tsx), the
 * filesystem server from npm (`@modelcontextprotocol/server-filesystem`), and the SDK's own
 * Streamable HTTP example server.
 *
 * Boundary rule: test support; every server is a child process on this machine, HTTP ones on
 * 127.0.0.1.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { McpStdioServerConfig } from "../../../src/home/mcp-config.js";
import { freePort } from "../free-port.js";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const tsxLoader = import.meta.resolve("tsx");

/** The stdio test server (stdio-server.ts) as an `mcpServers` entry. */
export function testServerConfig(
  args: string[] = [],
  extra: Partial<McpStdioServerConfig> = {},
): McpStdioServerConfig {
  return {
    command: process.execPath,
    args: ["--import", tsxLoader, join(here, "stdio-server.ts"), ...args],
    ...extra,
  };
}

/** The probe server (probe-server.ts) as an `mcpServers` entry. */
export function probeServerConfig(extra: Partial<McpStdioServerConfig> = {}): McpStdioServerConfig {
  return {
    command: process.execPath,
    args: ["--import", tsxLoader, join(here, "probe-server.ts")],
    ...extra,
  };
}

/** The npm filesystem server, confined to the session's workspace. */
export function filesystemServerConfig(): McpStdioServerConfig {
  const packageJson = require.resolve("@modelcontextprotocol/server-filesystem/package.json");
  return { command: process.execPath, args: [join(dirname(packageJson), "dist/index.js"), "${workspace}"] };
}

/** A running HTTP server process and its MCP endpoint. */
export interface RunningHttpServer {
  url: string;
  process: ChildProcess;
  /** Kill it (SIGKILL) and wait for it to be gone. */
  kill(): Promise<void>;
}

/** Start the Streamable HTTP test server (http-server.ts) with `args`; resolves once it listens. */
export function startHttpTestServer(args: string[] = []): Promise<RunningHttpServer> {
  return startListening(
    process.execPath,
    ["--import", tsxLoader, join(here, "http-server.ts"), ...args],
    {},
    (line) => {
      const match = /^listening (\S+)/.exec(line);
      return match?.[1];
    },
  );
}

/** Start the SDK's example Streamable HTTP server (`simpleStreamableHttp`) on a free port. */
export async function startSdkExampleServer(): Promise<RunningHttpServer> {
  const port = await freePort();
  const file = fileURLToPath(
    import.meta.resolve("@modelcontextprotocol/sdk/examples/server/simpleStreamableHttp.js"),
  );
  return startListening(process.execPath, [file], { MCP_PORT: String(port) }, (line) =>
    line.includes(`listening on port ${port}`) ? `http://127.0.0.1:${port}/mcp` : undefined,
  );
}

function startListening(
  command: string,
  args: string[],
  env: Record<string, string>,
  urlOf: (line: string) => string | undefined,
): Promise<RunningHttpServer> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  const kill = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    await exited;
  };
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => {
      void kill();
      reject(new Error(`the MCP server did not start listening; output:\n${output}`));
    }, 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      for (const line of output.split("\n")) {
        const url = urlOf(line);
        if (url === undefined) continue;
        clearTimeout(timer);
        child.stdout?.off("data", onData);
        child.stdout?.resume();
        resolve({ url, process: child, kill });
        return;
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the MCP server exited before it listened; output:\n${output}`));
    });
  });
}

/**
 * Host pids of the live processes whose working directory is `directory`: a sandboxed server's
 * own pid file holds pids of its PID namespace, which mean nothing on the host.
 */
export function processesIn(directory: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (/\) Z /.test(stat)) continue;
      if (readlinkSync(`/proc/${entry}/cwd`) === directory) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return found;
}

/** Whether `pid` is a live process (a zombie waiting to be reaped is not). */
export function isProcessAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}
