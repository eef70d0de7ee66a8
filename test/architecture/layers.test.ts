/**
 * The layer rules of .dependency-cruiser.cjs, run as `npm run lint:layers` does: they pass on
 * src/ as it is, and they fail on small trees that break them (an upward import, a type-only
 * one, the client reaching the daemon, the CLI loading the daemon eagerly, a type-only cycle,
 * and inside the daemon a floor importing one above it or a sibling).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const depcruise = join(projectRoot, "node_modules/dependency-cruiser/bin/dependency-cruise.mjs");
const config = join(projectRoot, ".dependency-cruiser.cjs");
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

interface Cruise {
  code: number;
  output: string;
}

/** Run dependency-cruiser with the project's rules on `src` under `cwd`. */
function cruise(cwd: string, extra: readonly string[] = []): Promise<Cruise> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [depcruise, "src", "--config", config, "--output-type", "err", ...extra],
      { cwd, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
        done({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** A tree `src/<path>` → content, with the tsconfig the rules read. */
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
    const file = join(root, "src", path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
  }
  return root;
}

/** A well-layered tree the cases below each break in one place. */
const base: Record<string, string> = {
  "model/items.ts": "export interface Item { id: string }\n",
  "providers/client.ts":
    'import type { Item } from "../model/items.js";\nexport const send = (item: Item) => item.id;\n',
  "api/wire.ts": 'import type { Item } from "../model/items.js";\nexport type Wire = { item: Item };\n',
  "daemon/daemon.ts":
    'import type { Wire } from "../api/wire.js";\nexport const serve = (wire: Wire) => wire;\n',
  "client/index.ts":
    'import type { Wire } from "../api/wire.js";\nexport const read = (wire: Wire) => wire;\n',
  "cli/main.ts": 'import { read } from "../client/index.js";\nexport const main = read;\n',
  "cli/load-daemon.ts": 'export const loadDaemon = () => import("../daemon/daemon.js");\n',
  "daemon/errors.ts": "export class DaemonError extends Error {}\n",
  "daemon/http/problem.ts":
    'import { DaemonError } from "../errors.js";\nexport const problem = DaemonError;\n',
  "daemon/storage/rows.ts": 'import { problem } from "../http/problem.js";\nexport const rows = problem;\n',
  "daemon/session/port.ts": 'import { rows } from "../storage/rows.js";\nexport const port = rows;\n',
  "daemon/approval/gate.ts": 'import { port } from "../session/port.js";\nexport const gate = port;\n',
  "daemon/compaction/compactor.ts":
    'import { port } from "../session/port.js";\nexport const compactor = port;\n',
  "daemon/turn/run.ts":
    'import { gate } from "../approval/gate.js";\nimport { compactor } from "../compaction/compactor.js";\nexport const run = [gate, compactor];\n',
  "daemon/actor/actor.ts": 'import { run } from "../turn/run.js";\nexport const actor = run;\n',
  "daemon/routes/routes.ts": 'import { actor } from "../actor/actor.js";\nexport const routes = actor;\n',
};

describe("the layer rules", () => {
  it("pass on the project's src/", async () => {
    const result = await cruise(projectRoot, []);
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
      { "model/items.ts": 'import { send } from "../providers/client.js";\nexport const again = send;\n' },
      "model-imports-nothing",
    ],
    [
      "a type-only upward import",
      {
        "model/items.ts":
          'import type { Wire } from "../api/wire.js";\nexport interface Item { id: string; wire?: Wire }\n',
      },
      "model-imports-nothing",
    ],
    [
      "a sideways import between lower layers (worker importing log)",
      {
        "log/store.ts": "export const store = 1;\n",
        "worker/run.ts": 'import { store } from "../log/store.js";\nexport const run = store;\n',
      },
      "worker-imports-model",
    ],
    [
      "the client importing the daemon",
      { "client/index.ts": 'import { serve } from "../daemon/daemon.js";\nexport const read = serve;\n' },
      "client-imports-model-api",
    ],
    [
      "the CLI importing the daemon outside the loader",
      { "cli/main.ts": 'import { serve } from "../daemon/daemon.js";\nexport const main = serve;\n' },
      "cli-imports-model-api-client",
    ],
    [
      "the loader importing the daemon eagerly",
      {
        "cli/load-daemon.ts":
          'import { serve } from "../daemon/daemon.js";\nexport const loadDaemon = serve;\n',
      },
      "daemon-loader-is-lazy",
    ],
    [
      "a daemon floor importing one above it (session importing turn)",
      {
        "daemon/session/port.ts":
          'import type { run } from "../turn/run.js";\nexport const port: typeof run | null = null;\n',
      },
      "daemon-session-imports-storage-stream-history-http",
    ],
    [
      "a daemon floor importing its sibling (approval importing compaction)",
      {
        "daemon/approval/gate.ts":
          'import { compactor } from "../compaction/compactor.js";\nexport const gate = compactor;\n',
      },
      "daemon-approval-imports-session-storage-stream-history-http",
    ],
    [
      "the daemon's bottom floor importing the routes (http importing routes)",
      {
        "daemon/http/problem.ts":
          'import { routes } from "../routes/routes.js";\nexport const problem = routes;\n',
      },
      "daemon-http-imports-no-floor",
    ],
    [
      "a cycle made of type-only imports",
      {
        "api/wire.ts": 'import type { Other } from "./other.js";\nexport type Wire = { other?: Other };\n',
        "api/other.ts": 'import type { Wire } from "./wire.js";\nexport type Other = { wire?: Wire };\n',
      },
      "no-circular",
    ],
  ];

  it.each(broken)("fail on %s", async (_name, change, rule) => {
    const result = await cruise(tree({ ...base, ...change }));
    expect(result.code, result.output).not.toBe(0);
    expect(result.output).toContain(rule);
  });
});
