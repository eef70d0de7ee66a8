/**
 * What a sandboxed program can reach and touch: TCP connections to the given addresses, writes
 * to and reads of the given paths (a leading `$HOME` is the program's HOME), each with its outcome. Run as a script
 * (`node --import tsx network-probe.ts '<json>'`) it prints the report as JSON; the MCP probe
 * server (mcp/probe-server.ts) runs the same probes as a tool.
 *
 * Boundary rule: test support; plain Node, nothing of Skein's.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { fileURLToPath } from "node:url";

/** What to try. */
export interface ProbeRequest {
  tcp?: Array<{ host: string; port: number }>;
  write?: string[];
  read?: string[];
}

/** What happened: `"open"`/`"written"`, the file's text, or the error code. */
export interface ProbeReport {
  tcp: Record<string, string>;
  write: Record<string, string>;
  read: Record<string, string>;
  env: { HOME: string | null; TMPDIR: string | null };
}

const connectTimeoutMs = 3_000;

/** Runs every probe of `request`. */
export async function probe(request: ProbeRequest): Promise<ProbeReport> {
  const tcp: Record<string, string> = {};
  await Promise.all(
    (request.tcp ?? []).map(async ({ host, port }) => {
      tcp[`${host.includes(":") ? `[${host}]` : host}:${port}`] = await tryConnect(host, port);
    }),
  );
  const home = process.env.HOME ?? "";
  const expand = (path: string) => (path.startsWith("$HOME/") ? `${home}${path.slice(5)}` : path);
  const write: Record<string, string> = {};
  for (const path of request.write ?? []) {
    try {
      writeFileSync(expand(path), "written by the probe\n");
      write[path] = "written";
    } catch (error) {
      write[path] = codeOf(error);
    }
  }
  const read: Record<string, string> = {};
  for (const path of request.read ?? []) {
    try {
      read[path] = readFileSync(expand(path), "utf8");
    } catch (error) {
      read[path] = codeOf(error);
    }
  }
  return { tcp, write, read, env: { HOME: process.env.HOME ?? null, TMPDIR: process.env.TMPDIR ?? null } };
}

function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve("timeout");
    }, connectTimeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve("open");
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      resolve(codeOf(error));
    });
  });
}

function codeOf(error: unknown): string {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return String(error);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await probe(JSON.parse(process.argv[2] ?? "{}") as ProbeRequest);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
