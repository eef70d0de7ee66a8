/**
 * The layer rules of .dependency-cruiser.cjs, run as `npm run lint:layers` does: they pass on
 * src/ and web/src as they are, and they fail on small trees that break them (an upward import,
 * a type-only one, the client reaching the daemon, the CLI loading the daemon eagerly, a
 * type-only cycle, a Node module in the wire contract, the web UI reaching past the contract,
 * and inside the daemon a floor importing one above it or a sibling).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const depcruise = join(projectRoot, "scripts/depcruise.mjs");
const config = join(projectRoot, ".dependency-cruiser.cjs");
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Cruise {
  code: number;
  output: string;
}

/** Run dependency-cruiser with the project's rules on `src` and `web/src` under `cwd`. */
function cruise(cwd: string): Promise<Cruise> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [depcruise, "src", "web/src", "--config", config, "--output-type", "err"],
      { cwd, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** A tree `<path>` → content (under src/ and web/src/), with the tsconfig the rules read. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "skein-layers-"));
  roots.push(root);
  writeFileSync(
    join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" },
      include: ["src"],
    }),
  );
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}

/** A well-layered tree the cases below each break in one place. */
const base: Record<string, string> = {
  "src/model/items.ts": "export interface Item { id: string }\n",
  "src/providers/client.ts":
    'import type { Item } from "../model/items.js";\nexport const send = (item: Item) => item.id;\n',
  "src/api/wire.ts": 'import type { Item } from "../model/items.js";\nexport type Wire = { item: Item };\n',
  "src/home/home.ts":
    'import { join } from "node:path";\nimport type { Wire } from "../api/wire.js";\nexport const file = (wire: Wire) => join("home", wire.item.id);\n',
  "src/daemon/daemon.ts":
    'import type { Wire } from "../api/wire.js";\nimport { file } from "../home/home.js";\nexport const serve = (wire: Wire) => file(wire);\n',
  "src/client/stream-batch.ts":
    'import type { Wire } from "../api/wire.js";\nexport const decode = (text: string): Wire => JSON.parse(text);\n',
  "src/client/index.ts":
    'import type { Wire } from "../api/wire.js";\nimport { file } from "../home/home.js";\nexport const read = (wire: Wire) => file(wire);\n',
  "src/cli/main.ts": 'import { read } from "../client/index.js";\nexport const main = read;\n',
  "src/cli/load-daemon.ts": 'export const loadDaemon = () => import("../daemon/daemon.js");\n',
  "web/src/app.tsx":
    'import type { Wire } from "../../src/api/wire.js";\nimport { decode } from "../../src/client/stream-batch.js";\nexport const App = (props: { wire: Wire }) => <p>{decode(props.wire.item.id).item.id}</p>;\n',
  "src/daemon/errors.ts": "export class DaemonError extends Error {}\n",
  "src/daemon/http/problem.ts":
    'import { DaemonError } from "../errors.js";\nexport const problem = DaemonError;\n',
  "src/daemon/storage/rows.ts":
    'import { problem } from "../http/problem.js";\nexport const rows = problem;\n',
  "src/daemon/session/port.ts": 'import { rows } from "../storage/rows.js";\nexport const port = rows;\n',
  "src/daemon/approval/gate.ts": 'import { port } from "../session/port.js";\nexport const gate = port;\n',
  "src/daemon/compaction/compactor.ts":
    'import { port } from "../session/port.js";\nexport const compactor = port;\n',
  "src/daemon/turn/run.ts":
    'import { gate } from "../approval/gate.js";\nimport { compactor } from "../compaction/compactor.js";\nexport const run = [gate, compactor];\n',
  "src/daemon/actor/actor.ts": 'import { run } from "../turn/run.js";\nexport const actor = run;\n',
  "src/daemon/routes/routes.ts": 'import { actor } from "../actor/actor.js";\nexport const routes = actor;\n',
};

describe("the layer rules", () => {
  it("pass on the project's src/ and web/src", async () => {
    const result = await cruise(projectRoot);
    expect(result.output).toContain("no dependency violations found");
    expect(result.code, result.output).toBe(0);
  });

  it("pass on a well-layered tree", async () => {
    const result = await cruise(tree(base));
    expect(result.code, result.output).toBe(0);
  });

  const broken: Array<[string, Record<string, string>, string]> = [
    [
      "an upward import (model importing providers)",
      {
        "src/model/items.ts": 'import { send } from "../providers/client.js";\nexport const again = send;\n',
      },
      "model-imports-nothing",
    ],
    [
      "a type-only upward import",
      {
        "src/model/items.ts":
          'import type { Wire } from "../api/wire.js";\nexport interface Item { id: string; wire?: Wire }\n',
      },
      "model-imports-nothing",
    ],
    [
      "a sideways import between lower layers (worker importing log)",
      {
        "src/log/store.ts": "export const store = 1;\n",
        "src/worker/run.ts": 'import { store } from "../log/store.js";\nexport const run = store;\n',
      },
      "worker-imports-model",
    ],
    [
      "the client importing the daemon",
      { "src/client/index.ts": 'import { serve } from "../daemon/daemon.js";\nexport const read = serve;\n' },
      "client-imports-model-api-home",
    ],
    [
      "the CLI importing the daemon outside the loader",
      { "src/cli/main.ts": 'import { serve } from "../daemon/daemon.js";\nexport const main = serve;\n' },
      "cli-imports-model-api-home-client",
    ],
    [
      "the loader importing the daemon eagerly",
      {
        "src/cli/load-daemon.ts":
          'import { serve } from "../daemon/daemon.js";\nexport const loadDaemon = serve;\n',
      },
      "daemon-loader-is-lazy",
    ],
    [
      "a daemon floor importing one above it (session importing turn)",
      {
        "src/daemon/session/port.ts":
          'import type { run } from "../turn/run.js";\nexport const port: typeof run | null = null;\n',
      },
      "daemon-session-imports-budget-storage-stream-history-http",
    ],
    [
      "a daemon floor importing its sibling (approval importing compaction)",
      {
        "src/daemon/approval/gate.ts":
          'import { compactor } from "../compaction/compactor.js";\nexport const gate = compactor;\n',
      },
      "daemon-approval-imports-session-budget-storage-stream-history-http",
    ],
    [
      "the daemon's bottom floor importing the routes (http importing routes)",
      {
        "src/daemon/http/problem.ts":
          'import { routes } from "../routes/routes.js";\nexport const problem = routes;\n',
      },
      "daemon-http-imports-no-floor",
    ],
    [
      "a cycle made of type-only imports",
      {
        "src/api/wire.ts":
          'import type { Other } from "./other.js";\nexport type Wire = { other?: Other };\n',
        "src/api/other.ts": 'import type { Wire } from "./wire.js";\nexport type Other = { wire?: Wire };\n',
      },
      "no-circular",
    ],
    [
      "a Node module in the wire contract",
      {
        "src/api/wire.ts":
          'import { join } from "node:path";\nimport type { Item } from "../model/items.js";\nexport type Wire = { item: Item };\nexport const where = join("a", "b");\n',
      },
      "api-uses-no-node",
    ],
    [
      "the wire contract importing a provider",
      {
        "src/api/wire.ts":
          'import type { send } from "../providers/client.js";\nexport type Wire = { item: { id: string }; send?: typeof send };\n',
      },
      "api-imports-model",
    ],
    [
      "an upward import from the web UI (the client beyond the stream decoder)",
      {
        "web/src/app.tsx":
          'import { read } from "../../src/client/index.js";\nexport const App = () => <p>{String(read)}</p>;\n',
      },
      "web-imports-api-and-stream-decoder",
    ],
    [
      "a type-only import from the web UI into the daemon",
      {
        "web/src/app.tsx":
          'import type { serve } from "../../src/daemon/daemon.js";\nexport const App = (props: { serve: typeof serve }) => <p>{String(props.serve)}</p>;\n',
      },
      "web-imports-api-and-stream-decoder",
    ],
    [
      "a Node module reached from the web UI through the stream decoder",
      {
        "src/client/stream-batch.ts":
          'import { file } from "../home/home.js";\nexport const decode = (text: string) => JSON.parse(file(JSON.parse(text)));\n',
      },
      "web-reaches-no-node",
    ],
  ];

  it.each(broken)("fail on %s", async (_name, change, rule) => {
    const result = await cruise(tree({ ...base, ...change }));
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toContain(rule);
  });
});
