/**
 * docs/http-api.md stays the whole contract: it names every route the daemon registers, every
 * problem code the daemon can answer with, and every field of the wire schemas (src/api/schemas,
 * the one definition of the contract's shapes).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { problemStatuses } from "../../src/api/problem.js";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const doc = readFileSync(join(projectRoot, "docs/http-api.md"), "utf8");

/** A route path with its parameters unnamed: `/sessions/:sid` and `/sessions/{id}` both read `/sessions/{}`. */
function shape(path: string): string {
  return path.replace(/:[A-Za-z_]+/g, "{}").replace(/\{[A-Za-z_]+\}/g, "{}");
}

/** Every path the daemon's route modules register. */
function registeredPaths(): string[] {
  const folder = join(projectRoot, "src/daemon/routes");
  const paths: string[] = [];
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".ts"))) {
    const source = readFileSync(join(folder, file), "utf8");
    for (const match of source.matchAll(/registerResource\(app, "([^"]+)"/g)) paths.push(match[1]!);
  }
  return paths;
}

/** The property names of `schema` and of every schema inside it. */
function fieldNames(schema: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(schema)) {
    for (const item of schema) fieldNames(item, into);
  } else if (typeof schema === "object" && schema !== null) {
    const record = schema as Record<string, unknown>;
    const properties = record.properties;
    if (typeof properties === "object" && properties !== null) {
      for (const name of Object.keys(properties)) into.add(name);
    }
    for (const value of Object.values(record)) fieldNames(value, into);
  }
  return into;
}

/** Every field name of every schema the modules of src/api/schemas export. */
async function wireFieldNames(): Promise<string[]> {
  const folder = join(projectRoot, "src/api/schemas");
  const names = new Set<string>();
  for (const file of readdirSync(folder).filter((name) => name.endsWith(".ts"))) {
    const module = (await import(pathToFileURL(join(folder, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) fieldNames(value, names);
  }
  return [...names].sort();
}

describe("docs/http-api.md", () => {
  it("documents every route the daemon registers", () => {
    const documented = new Set(
      [...doc.matchAll(/`(?:GET|PUT|POST|DELETE) (\/[^`?[\s]*)/g)].map((m) => shape(m[1]!)),
    );
    const paths = registeredPaths();
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths) expect(documented, path).toContain(shape(path));
  });

  it("documents every problem code with its status", () => {
    for (const [code, status] of Object.entries(problemStatuses)) {
      expect(doc, code).toMatch(new RegExp(`\\| \`${code}\` \\| ${status} \\|`));
    }
  });

  it("names every field of the wire schemas", async () => {
    const names = await wireFieldNames();
    expect(names.length).toBeGreaterThan(100);
    const undocumented = names.filter(
      (name) => !new RegExp(`(?<![A-Za-z0-9_])${name}(?![A-Za-z0-9_])`).test(doc),
    );
    expect(undocumented).toEqual([]);
  });
});
