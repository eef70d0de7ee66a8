/**
 * The Node.js floor of a plain turn, as a process the daemon bench drives like a daemon:
 * bench/turn-floor-server.ts bundled with esbuild (as the daemon is bundled, better-sqlite3
 * left external) and started as `node <bundle> <config>` (its own process, so its CPU is read
 * from /proc like the daemon's), bundle and SQLite file in a temporary directory of its own. The daemon's part `turns` runs the same turns, with the same client, against it
 * (bench/daemon-turns.ts): its CPU and overhead per turn are the baselines of the daemon's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { v7 as uuidv7 } from "uuid";
import { rawRequest } from "../test/e2e/support/daemon-harness.js";
import type { FakeProvider, RecordedRequest } from "../test/support/fake-provider/server.js";
import type { FloorConfig } from "./turn-floor-server.js";

const here = dirname(fileURLToPath(import.meta.url));

/** What each request repeats: the daemon's system prompt and tools, from one of its recorded requests. */
export interface RequestTemplate {
  system: string;
  toolsJson: string;
}

/** The system prompt and the tools of a Chat Completions request the daemon sent. */
export function requestTemplateOf(request: RecordedRequest): RequestTemplate {
  const body = request.body as { messages?: { role: string; content: string }[]; tools?: unknown[] };
  const system = body.messages?.find((message) => message.role === "system")?.content;
  if (system === undefined || body.tools === undefined)
    throw new Error(`not a daemon's Chat Completions request: ${request.rawBody.slice(0, 200)}`);
  return { system, toolsJson: JSON.stringify(body.tools) };
}

/** A running floor process: where to reach it and its pid, as a daemon harness gives them. */
export interface TurnFloor {
  port: number;
  token: string;
  pid: number;
  /** A new session (not part of any turn). */
  createSession(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Bundle the floor server into `dir`. better-sqlite3 (a native addon) stays external, imported
 * by its absolute path: the bundle lives outside the checkout, where a bare name would not resolve.
 */
async function bundle(dir: string): Promise<string> {
  const out = join(dir, "turn-floor.mjs");
  const driver = createRequire(import.meta.url).resolve("better-sqlite3");
  await build({
    entryPoints: [join(here, "turn-floor-server.ts")],
    outfile: out,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    plugins: [
      {
        name: "driver-by-path",
        setup(resolver) {
          resolver.onResolve({ filter: /^better-sqlite3$/ }, () => ({ path: driver, external: true }));
        },
      },
    ],
    banner: {
      js: "import { createRequire as __floorCreateRequire } from 'node:module'; const require = __floorCreateRequire(import.meta.url);",
    },
    logLevel: "warning",
  });
  return out;
}

/**
 * Start a floor process answering with `provider` (Chat Completions) and requests as long as the
 * daemon's; `launcher` goes before `node` (valgrind, for bench/instructions.ts).
 */
export async function startTurnFloor(
  provider: FakeProvider,
  template: RequestTemplate,
  launcher: readonly string[] = [],
): Promise<TurnFloor> {
  const dir = mkdtempSync(join(tmpdir(), "skein-floor-"));
  const token = uuidv7();
  const config: FloorConfig = {
    dbPath: join(dir, "floor.sqlite"),
    token,
    providerUrl: `${provider.baseUrlWith("v1")}/chat/completions`,
    apiKey: "bench-key",
    model: "bench-model",
    ...template,
  };
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(config));
  const command = [...launcher, process.execPath, await bundle(dir), configPath];
  const child = spawn(command[0]!, command.slice(1), {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await portOf(child);
  const floor: TurnFloor = {
    port,
    token,
    pid: child.pid ?? 0,
    async createSession() {
      const id = uuidv7();
      const answer = await rawRequest(port, {
        method: "PUT",
        path: `/sessions/${id}`,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: "{}",
      });
      if (answer.status !== 201) throw new Error(`floor session: ${answer.status} ${answer.text}`);
      return id;
    },
    async close() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await once(child, "exit");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return floor;
}

/** The port the floor prints once it listens. */
function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = "";
    const early = (code: number | null) =>
      reject(new Error(`the turn floor exited with ${String(code)} before listening`));
    child.once("exit", early);
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
      const line = output.indexOf("\n");
      if (line < 0) return;
      child.off("exit", early);
      resolve((JSON.parse(output.slice(0, line)) as { port: number }).port);
    });
  });
}
