/**
 * What a sandboxed program can reach and touch: TCP connections to the given addresses, writes
 * to and reads of the given paths (a leading `$HOME` is the program's HOME), each with its
 * outcome. Plain JavaScript on purpose: a copy of this one file (`writeProbeScript`) runs with
 * `node` alone in any sandbox, whose private /tmp may hide the checkout, its loader and its
 * node_modules. Run as a script (`node network-probe.mjs '<json>'`) it prints the report as
 * JSON; the MCP probe server (mcp/probe-server.ts) runs the same probes as a tool. Types:
 * network-probe.d.mts.
 *
 * Boundary rule: test support; plain Node, nothing of Skein's, no imports but Node's.
 */
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const connectTimeoutMs = 3_000;

/** Runs every probe of `request`. */
export async function probe(request) {
  const tcp = {};
  await Promise.all(
    (request.tcp ?? []).map(async ({ host, port }) => {
      tcp[`${host.includes(":") ? `[${host}]` : host}:${port}`] = await tryConnect(host, port);
    }),
  );
  const home = process.env.HOME ?? "";
  const expand = (path) => (path.startsWith("$HOME/") ? `${home}${path.slice(5)}` : path);
  const write = {};
  for (const path of request.write ?? []) {
    try {
      writeFileSync(expand(path), "written by the probe\n");
      write[path] = "written";
    } catch (error) {
      write[path] = codeOf(error);
    }
  }
  const read = {};
  for (const path of request.read ?? []) {
    try {
      read[path] = readFileSync(expand(path), "utf8");
    } catch (error) {
      read[path] = codeOf(error);
    }
  }
  return { tcp, write, read, env: { HOME: process.env.HOME ?? null, TMPDIR: process.env.TMPDIR ?? null } };
}

/** Copies this script into `directory` (as `network-probe.mjs`) and returns the copy's path. */
export function writeProbeScript(directory) {
  const copy = join(directory, "network-probe.mjs");
  copyFileSync(fileURLToPath(import.meta.url), copy);
  return copy;
}

function tryConnect(host, port) {
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

function codeOf(error) {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") {
    return error.code;
  }
  return String(error);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await probe(JSON.parse(process.argv[2] ?? "{}"));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
