/**
 * The layers of src/ and the only directions their imports may take, checked by
 * `npm run lint:layers` (part of `npm test`). Type-only imports count like any other: a layer
 * that needs another's types depends on it.
 *
 *   model                          plain data and interfaces; imports nothing of ours
 *   providers, worker, tools, log  each on model only, never on each other
 *   api                            the HTTP contract: model, providers (config.json's profiles)
 *   mcp                            MCP servers as tools: model, tools (output limits), api
 *                                  (config.json's mcpServers, the status wire types)
 *   daemon                         everything below it, the contract included
 *   client                         api and model only: never the daemon or the CLI
 *   cli                            client, api, model; the daemon only through load-daemon.ts,
 *                                  by a dynamic import (`skein daemon run`)
 *
 * src/index.ts, the library's entry, exports the layers below api. No cycles anywhere.
 *
 * Inside the daemon, floors (a folder of src/daemon each), top to bottom; a floor may import
 * only the floors below it (siblings, in braces, not each other), and every floor the
 * daemon's errors (src/daemon/errors.ts):
 *
 *   routes                         the HTTP routes (and beside them process/ and cluster/,
 *                                  which no floor below imports; daemon.ts wires them all)
 *   actor                          the session actor, its supervisor (registry), the list hub
 *   turn                           a session's turns: scheduler, run, start, end, recovery
 *   {approval, compaction}         the approval gate and policy; context compaction
 *   session                        what every part of a session shares: the port, the log
 *                                  writer, the input queue, the mailbox, snapshots, settings
 *   {storage, stream, history}     tables and backends; the event feed; history projection
 *   http                           HTTP ingress
 */
const layers = {
  model: [],
  providers: ["model"],
  worker: ["model"],
  tools: ["model"],
  log: ["model"],
  api: ["model", "providers"],
  mcp: ["model", "tools", "api"],
  daemon: ["model", "providers", "worker", "tools", "log", "api", "mcp"],
  client: ["model", "api"],
  cli: ["model", "api", "client"],
};

/** The daemon's floors, top to bottom: each lists the floors it may import. */
const daemonFloors = {
  routes: [
    "actor",
    "turn",
    "approval",
    "compaction",
    "session",
    "storage",
    "stream",
    "history",
    "http",
    "process",
    "cluster",
  ],
  actor: ["turn", "approval", "compaction", "session", "storage", "stream", "history", "http"],
  turn: ["approval", "compaction", "session", "storage", "stream", "history", "http"],
  approval: ["session", "storage", "stream", "history", "http"],
  compaction: ["session", "storage", "stream", "history", "http"],
  session: ["storage", "stream", "history", "http"],
  storage: ["http"],
  stream: ["http"],
  history: ["http"],
  http: [],
};

function daemonFloorRule(floor, allowed) {
  return {
    name: `daemon-${floor}-imports-${allowed.length === 0 ? "no-floor" : allowed.join("-")}`,
    comment: `src/daemon/${floor} may import only ${allowed.length === 0 ? "itself" : `itself and ${allowed.join(", ")}`} of the daemon (and its errors)`,
    severity: "error",
    from: { path: `^src/daemon/${floor}/` },
    to: {
      path: "^src/daemon/",
      pathNot: [`^src/daemon/(${[floor, ...allowed].join("|")})/`, "^src/daemon/errors\\.ts$"],
    },
  };
}

/** The one file of the CLI that may reach the daemon (lazily, for `skein daemon run`). */
const daemonLoader = "^src/cli/load-daemon\\.ts$";

function layerRule(layer, allowed) {
  return {
    name: `${layer}-imports-${allowed.length === 0 ? "nothing" : allowed.join("-")}`,
    comment: `src/${layer} may import only ${allowed.length === 0 ? "itself" : `itself and ${allowed.join(", ")}`}`,
    severity: "error",
    from: { path: `^src/${layer}/`, ...(layer === "cli" ? { pathNot: daemonLoader } : {}) },
    to: { path: "^src/", pathNot: `^src/(${[layer, ...allowed].join("|")})/` },
  };
}

module.exports = {
  forbidden: [
    ...Object.entries(layers).map(([layer, allowed]) => layerRule(layer, allowed)),
    ...Object.entries(daemonFloors).map(([floor, allowed]) => daemonFloorRule(floor, allowed)),
    {
      name: "daemon-loader-loads-only-the-daemon",
      comment: "load-daemon.ts reaches the daemon through src/daemon/daemon.ts and nothing else of it",
      severity: "error",
      from: { path: daemonLoader },
      to: { path: "^src/", pathNot: ["^src/(model|api|client|cli)/", "^src/daemon/daemon\\.ts$"] },
    },
    {
      name: "daemon-loader-is-lazy",
      comment: "the CLI loads the daemon only when `skein daemon run` runs: a dynamic import",
      severity: "error",
      from: { path: daemonLoader },
      to: { path: "^src/daemon/", dependencyTypesNot: ["dynamic-import"] },
    },
    {
      name: "library-entry-exports-the-library",
      comment: "src/index.ts exports model, providers, worker, tools and log; not the programs",
      severity: "error",
      from: { path: "^src/index\\.ts$" },
      to: { path: "^src/", pathNot: "^src/(model|providers|worker|tools|log)/" },
    },
    {
      name: "no-circular",
      comment: "no import cycles, type-only imports included",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-unresolvable",
      comment: "every import resolves, so no dependency escapes these rules",
      severity: "error",
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // swc parses TypeScript itself and reports `import type` like any import (the TypeScript
    // compiler's own API, which dependency-cruiser can also use, is not in TypeScript 7).
    parser: "swc",
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      mainFields: ["module", "main", "types", "typings"],
    },
  },
};
