/**
 * Measures source files and the functions in them with the TypeScript compiler's own parser
 * (TypeScript 7's API, which runs the compiler as a child process): the lengths the size rules
 * of test/architecture/sizes.test.ts hold the code to.
 *
 * How a function is counted: from the line of its first token (its leading comments and doc
 * excluded) to the line of its last, both included, so a blank line or a comment inside counts.
 * A function that holds another is counted whole — nested functions are part of what a reader
 * of the outer one must read — and each nested function is measured on its own as well, so a
 * long callback inside a short method is reported under its own name.
 */
import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import {
  computeLineStarts,
  isArrowFunction,
  isConstructorDeclaration,
  isFunctionDeclaration,
  isFunctionExpression,
  isGetAccessorDeclaration,
  isIdentifier,
  isMethodDeclaration,
  isPropertyAssignment,
  isSetAccessorDeclaration,
  isVariableDeclaration,
  type Node,
  type SourceFile,
} from "typescript/unstable/ast";
import { API } from "typescript/unstable/sync";

/** One file's length in lines. */
interface FileSize {
  file: string;
  lines: number;
}

/** One function-like node: where it starts, what it is called, how many lines it spans. */
interface FunctionSize {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** What was measured under the given roots. */
export interface SourceSizes {
  files: FileSize[];
  functions: FunctionSize[];
}

/** Every `.ts` and `.tsx` file under `dir`, as absolute paths, in a stable order. */
function sourceFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...sourceFilesUnder(path));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) found.push(path);
  }
  return found.sort();
}

/** The lines of a text, as `wc -l` would count them for a file that ends with a newline. */
function lineCount(text: string): number {
  const starts = computeLineStarts(text);
  return text.endsWith("\n") ? starts.length - 1 : starts.length;
}

/** 0-based line of a position, by binary search over the line starts. */
function lineOf(starts: readonly number[], position: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle]! <= position) low = middle;
    else high = middle - 1;
  }
  return low;
}

function isFunctionLike(node: Node): boolean {
  return (
    isFunctionDeclaration(node) ||
    isMethodDeclaration(node) ||
    isConstructorDeclaration(node) ||
    isGetAccessorDeclaration(node) ||
    isSetAccessorDeclaration(node) ||
    isArrowFunction(node) ||
    isFunctionExpression(node)
  );
}

/** The name a reader would look for: the declared one, else the variable or property holding it. */
function functionName(node: Node, text: string): string {
  if (isConstructorDeclaration(node)) return "constructor";
  const named = node as Node & { name?: Node };
  if (named.name !== undefined && isIdentifier(named.name)) return named.name.text;
  if (named.name !== undefined) return text.slice(named.name.getStart(), named.name.end);
  const parent = node.parent;
  if (parent !== undefined && (isVariableDeclaration(parent) || isPropertyAssignment(parent))) {
    if (isIdentifier(parent.name)) return parent.name.text;
  }
  return "(anonymous)";
}

function measureFile(source: SourceFile, path: string, root: string, out: SourceSizes): void {
  const text = source.text;
  const starts = computeLineStarts(text);
  const file = relative(root, path);
  out.files.push({ file, lines: lineCount(text) });
  const visit = (node: Node): void => {
    if (isFunctionLike(node)) {
      const first = lineOf(starts, node.getStart(source));
      const last = lineOf(starts, Math.max(node.getStart(source), node.end - 1));
      out.functions.push({ file, line: first + 1, name: functionName(node, text), lines: last - first + 1 });
    }
    node.forEachChild(visit);
  };
  source.forEachChild(visit);
}

/**
 * Measure every source file under `dirs` (relative to `root`), each parsed by the project of the
 * tsconfig that includes it (`projects`, relative to `root`). A file no project includes is an
 * error: the rule would otherwise skip it silently.
 */
export function measureSources(root: string, projects: string[], dirs: string[]): SourceSizes {
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProjects: projects.map((project) => join(root, project)) });
    const programs = snapshot.getProjects().map((project) => project.program);
    const out: SourceSizes = { files: [], functions: [] };
    for (const dir of dirs) {
      for (const path of sourceFilesUnder(join(root, dir))) {
        const source = programs.map((program) => program.getSourceFile(path)).find((s) => s !== undefined);
        if (source === undefined) throw new Error(`${relative(root, path)} is in no project of ${projects}`);
        measureFile(source, path, root, out);
      }
    }
    return out;
  } finally {
    api.close();
  }
}
