/**
 * The size rules: no source file (src/, web/src) over 400 lines and no function over 80 — a
 * function declaration, method, constructor, accessor, arrow function or function expression,
 * React components included. How lines are counted (a function holding another is counted whole,
 * the nested one also on its own) is said in test/support/source-sizes.ts. The rules hold on the
 * project as it is, and a planted tree one line over each limit fails them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { measureSources, type SourceSizes } from "../support/source-sizes.js";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const maxFileLines = 400;
const maxFunctionLines = 80;
const roots: string[] = [];

afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** Every breach of the rules, one line each, as `file:line name (n lines)`. */
function breaches(sizes: SourceSizes): string[] {
  return [
    ...sizes.files.filter((f) => f.lines > maxFileLines).map((f) => `${f.file} (${f.lines} lines)`),
    ...sizes.functions
      .filter((f) => f.lines > maxFunctionLines)
      .map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`),
  ];
}

/** A function named `name` whose span is exactly `lines` lines. */
function functionOf(name: string, lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  return `export function ${name}(): void {\n${body}\n}\n`;
}

/** A planted tree under a temporary root: `src/` and `web/src/`, each with its tsconfig. */
function plantedTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "skein-sizes-"));
  roots.push(root);
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ include: ["src"] }));
  mkdirSync(join(root, "web"));
  writeFileSync(
    join(root, "web/tsconfig.json"),
    JSON.stringify({ compilerOptions: { jsx: "react-jsx" }, include: ["src"] }),
  );
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

describe("the size rules", () => {
  it("hold on every file and function of src/ and web/src", () => {
    const sizes = measureSources(projectRoot, ["tsconfig.json", "web/tsconfig.json"], ["src", "web/src"]);
    expect(sizes.files.length).toBeGreaterThan(100);
    expect(breaches(sizes)).toEqual([]);
  });

  it("report a file, a function, a method, an arrow, a nested callback and a component one line over", () => {
    const component = [
      "export const Page = () => {",
      ...Array.from({ length: 79 }, (_, i) => `  const v${i} = ${i};`),
      "  return <p>{v0}</p>;",
      "};",
      "",
    ].join("\n");
    const nested = [
      "export function outer(): void {",
      "  [1].map((x) => {",
      ...Array.from({ length: 79 }, (_, i) => `    const v${i} = x + ${i};`),
      "  });",
      "}",
      "",
    ].join("\n");
    const method = [
      "export class Holder {",
      functionOf("method", 81).replace("export function ", "  "),
      "}",
      "",
    ].join("\n");
    const root = plantedTree({
      "src/long-file.ts": "export const x = 1;\n".repeat(401),
      "src/at-limit.ts": "export const x = 1;\n".repeat(320) + functionOf("fits", 80),
      "src/long-function.ts": functionOf("tooLong", 81),
      "src/long-arrow.ts": functionOf("arrow", 81).replace(
        "export function arrow(): void {",
        "export const arrow = (): void => {",
      ),
      "src/nested.ts": nested,
      "src/holder.ts": method,
      "web/src/page.tsx": component,
    });
    const found = breaches(measureSources(root, ["tsconfig.json", "web/tsconfig.json"], ["src", "web/src"]));
    expect(found).toEqual(
      expect.arrayContaining([
        "src/long-file.ts (401 lines)",
        "src/long-function.ts:1 tooLong (81 lines)",
        "src/long-arrow.ts:1 arrow (81 lines)",
        "src/nested.ts:1 outer (83 lines)",
        "src/nested.ts:2 (anonymous) (81 lines)",
        "src/holder.ts:2 method (81 lines)",
        "web/src/page.tsx:1 Page (82 lines)",
      ]),
    );
    expect(found.filter((line) => line.includes("at-limit"))).toEqual([]);
    expect(found).toHaveLength(7);
  });
});
