/**
 * docs/http-api.md stays the whole contract: it names every route the daemon registers and
 * every problem code the daemon can answer with.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
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
});
