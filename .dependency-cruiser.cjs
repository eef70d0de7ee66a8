/**
 * The layers of src/ and the only directions their imports may take, checked by
 * `npm run lint:layers` (part of `npm test`). Type-only imports count like any other: a layer
 * that needs another's types depends on it.
 *
 *   model                          plain data and interfaces; imports nothing of ours
 *   providers, worker, tools, log  each on model only, never on each other
 *   api                            the HTTP wire contract: model only, and no Node module
 *   home                           the on-disk contract (the home's layout, config.json,
 *                                  daemon.json, checkpoint paths): model, providers (a
 *                                  profile's fields), api (the protocol version)
 *   mcp                            MCP servers as tools: model, tools (output limits), api
 *                                  (the status wire types), home (config.json's mcpServers)
 *   daemon                         everything below it, the contracts included
 *   client                         api, home and model only: never the daemon or the CLI
 *   cli                            client, api, home, model; the daemon only through
 *                                  load-daemon.ts, by a dynamic import (`skein daemon run`)
 *
 * web/src (the browser UI) may import src/api and the stream decoder (src/client/stream-batch.ts)
 * and nothing else of src/, and reaches no Node module. src/index.ts, the library's entry,
 * exports the layers below api. No cycles anywhere.
 *
 * Inside the daemon, floors (a folder of src/daemon each), top to bottom; a floor may import
 * only the floors below it (siblings, in braces, not each other), and every floor the
 * daemon's errors (src/daemon/errors.ts):
 *
 *   routes                         the HTTP routes (and beside them process/, cluster/ and
 *                                  boot/, which no floor imports; daemon.ts and boot/ wire all)
 *   {schedule, task}               the scheduler: firing times, firing ids, the firing loop;
 *                                  the `task` tool: agents, child sessions, their limits
 *   actor                          the session actor, its supervisor (registry), the list hub
 *   turn                           a session's turns: scheduler, run, start, end, recovery
 *   {approval, compaction, notify} the approval gate and policy; context compaction; the
 *                                  webhooks (the notification outbox's planner and deliverer)
 *   session                        what every part of a session shares: the port, the log
 *                                  writer, the input queue, the mailbox, snapshots, settings
 *   budget                         budgets: their arithmetic, the checks before model requests
 *   {storage, stream, history}     tables and backends; the event feed; history projection
 *   http                           HTTP ingress
 *   telemetry                      the OpenTelemetry spans of turns, admissions and relays
 */
const { builtinModules } = require("node:module");

const layers = {
  model: [],
  providers: ["model"],
  worker: ["model"],
  tools: ["model"],
  log: ["model"],
  api: ["model"],
  home: ["model", "providers", "api"],
  mcp: ["model", "tools", "api", "home"],
  daemon: ["model", "providers", "worker", "tools", "log", "api", "home", "mcp"],
  client: ["model", "api", "home"],
  cli: ["model", "api", "home", "client"],
};

/** The daemon's floors, top to bottom; siblings share a tier and do not import each other. */
const daemonTiers = [
  ["routes"],
  ["schedule", "task"],
  ["actor"],
  ["turn"],
  ["approval", "compaction", "notify"],
  ["session"],
  ["budget"],
  ["storage", "stream", "history"],
  ["http", "telemetry"],
];

/** Folders beside the floors that only the routes floor (and boot/, daemon.ts) may import. */
const routesSideFolders = ["process", "cluster"];

/** Each floor and the floors it may import: every floor of the tiers below its own. */
const daemonFloors = Object.fromEntries(
  daemonTiers.flatMap((tier, index) => {
    const below = daemonTiers.slice(index + 1).flat();
    return tier.map((floor) => [floor, floor === "routes" ? [...below, ...routesSideFolders] : below]);
  }),
);

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

/** Node's own modules, as dependency-cruiser names them (without `node:`). */
const nodeModules = `^(${builtinModules.join("|")})$`;

/** The one file of the client the web UI may use: decoding a stream frame, pure. */
const streamDecoder = "^src/client/stream-batch\\.ts$";

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
      name: "api-uses-no-node",
      comment: "the wire contract is plain data and schemas, so a browser can import it",
      severity: "error",
      from: { path: "^src/api/" },
      to: { dependencyTypes: ["core"] },
    },
    {
      name: "web-imports-api-and-stream-decoder",
      comment: "web/src may import src/api and the stream decoder, nothing else of src/",
      severity: "error",
      from: { path: "^web/src/" },
      to: { path: "^src/", pathNot: ["^src/api/", streamDecoder] },
    },
    {
      name: "web-reaches-no-node",
      comment: "nothing the web UI imports, directly or through others, is a Node module",
      severity: "error",
      from: { path: "^web/src/" },
      to: { path: nodeModules, reachable: true },
    },
    {
      name: "stream-decoder-is-pure",
      comment: "the stream decoder imports only the wire contract and the model: the web UI bundles it",
      severity: "error",
      from: { path: streamDecoder },
      to: { path: "^src/", pathNot: "^src/(api|model)/" },
    },
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
