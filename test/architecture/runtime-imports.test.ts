/**
 * What the CLI, the client library and the web page load when they run: never the wire schemas
 * (src/api/schemas, TypeBox values) nor TypeBox itself, which only the daemon needs (loading
 * TypeBox alone takes over 100 ms, and it would grow the page's bundle). Their types are used
 * everywhere, through type-only imports that vanish when compiled. esbuild follows exactly the
 * imports that remain at run time, so its view of an entry's graph is the one checked here.
 */
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build, type Plugin } from "esbuild";
import { describe, expect, it } from "vitest";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** The lazy import of the daemon by `skein daemon run` is the daemon's graph, not the CLI's. */
const daemonStaysOut: Plugin = {
  name: "daemon-stays-out",
  setup(plugin) {
    plugin.onResolve({ filter: /\/daemon\/daemon\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

interface RuntimeGraph {
  /** Project files loaded, relative to the project root. */
  files: string[];
  /** Packages loaded (their import paths). */
  packages: string[];
}

/** The project files and packages `entry` loads at run time. */
async function runtimeGraph(entry: string, platform: "node" | "browser"): Promise<RuntimeGraph> {
  const result = await build({
    absWorkingDir: projectRoot,
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    outdir: "out",
    platform,
    format: "esm",
    packages: "external",
    loader: { ".css": "empty" },
    plugins: [daemonStaysOut],
    logLevel: "silent",
  });
  const inputs = result.metafile.inputs;
  const packages = new Set<string>();
  for (const input of Object.values(inputs)) {
    for (const used of input.imports)
      if (used.external && !used.path.startsWith(".")) packages.add(used.path);
  }
  return { files: Object.keys(inputs), packages: [...packages] };
}

/** What of the wire schemas a graph holds: schema modules and TypeBox imports. */
function schemaLoads(graph: RuntimeGraph): string[] {
  return [
    ...graph.files.filter((file) => file.startsWith("src/api/schemas/")),
    ...graph.packages.filter((name) => name === "typebox" || name.startsWith("typebox/")),
  ];
}

describe("the wire schemas at run time", () => {
  it("are seen when an entry does load them (the check can fail)", async () => {
    const graph = await runtimeGraph(join("src", "api", "schemas", "session-events.ts"), "node");
    expect(schemaLoads(graph)).toContain("typebox");
    expect(schemaLoads(graph)).toContain("src/api/schemas/history.ts");
  });

  it.each([
    ["the CLI", "src/cli/main.ts", "node"],
    ["the client library (skein/client)", "src/client/index.ts", "node"],
    ["the web page", "web/src/main.tsx", "browser"],
  ] as const)("are not loaded by %s", async (_name, entry, platform) => {
    const graph = await runtimeGraph(entry, platform);
    expect(graph.files.some((file) => file.startsWith("src/api/"))).toBe(true);
    expect(schemaLoads(graph)).toEqual([]);
  });
});
