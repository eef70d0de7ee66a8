/**
 * Checks built request bodies against the official SDKs' request types, field by field: each
 * body is written as a fresh object literal typed with its SDK type (sdk-body-types.ts) into a
 * temporary module, and the TypeScript compiler, run once over all of them, reports every
 * literal with a field the type does not declare (its excess-property check), a value of the
 * wrong shape, or a required field missing. Vendor extensions a body carries on purpose are
 * taken out first, by path, and reported as found so a caller can tell which ones it sent.
 *
 * Boundary rule: test support; runs the real compiler in a child process.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The SDK type a body is checked against (sdk-body-types.ts). */
export type SdkBodyType = "SdkChatBody" | "SdkAnthropicBody" | "SdkResponsesBody" | "SdkGeminiBody";

/**
 * A field path inside a body: names separated by dots, `[]` after a name for each element of
 * that array (`messages[].tool_calls[].extra_content`).
 */
export type FieldPath = string;

/** One body to check. */
export interface BodyUnderCheck {
  /** What the body is (target and case), for the report. */
  label: string;
  type: SdkBodyType;
  body: unknown;
}

/** What the compiler said about one body. */
export interface SdkFinding {
  label: string;
  message: string;
  body: string;
}

const run = promisify(execFile);

/** Whether `value` is a plain JSON object. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * A copy of `body` without the fields at `paths`; `found` lists the paths that were present at
 * least once.
 */
export function withoutFields(
  body: unknown,
  paths: readonly FieldPath[],
): { body: unknown; found: FieldPath[] } {
  const copy: unknown = structuredClone(body);
  const found: FieldPath[] = [];
  for (const path of paths) {
    if (removeAt(copy, path.split("."))) found.push(path);
  }
  return { body: copy, found };
}

/** Deletes the field at `segments` under `node`; whether any was there. */
function removeAt(node: unknown, segments: readonly string[]): boolean {
  const [head, ...rest] = segments;
  if (head === undefined || !isObject(node)) return false;
  const each = head.endsWith("[]");
  const name = each ? head.slice(0, -2) : head;
  if (!Object.hasOwn(node, name)) return false;
  if (rest.length === 0 && !each) {
    delete node[name];
    return true;
  }
  const child = node[name];
  if (!each) return removeAt(child, rest);
  if (!Array.isArray(child)) return false;
  let removed = false;
  for (const element of child) removed = removeAt(element, rest) || removed;
  return removed;
}

/** The compiler's findings for `bodies` (none when every body is declared by its SDK type). */
export async function sdkFindings(bodies: readonly BodyUnderCheck[]): Promise<SdkFinding[]> {
  const here = dirname(fileURLToPath(import.meta.url));
  const types = join(here, "sdk-body-types.js");
  const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
  const directory = await mkdtemp(join(tmpdir(), "skein-sdk-check-"));
  try {
    const used = [...new Set(bodies.map((entry) => entry.type))];
    // Line n + 2 of the module holds body n (the import is line 1).
    const lines = [
      `import type { ${used.join(", ")} } from ${JSON.stringify(types)};`,
      ...bodies.map(
        (entry, index) => `export const body${index}: ${entry.type} = ${JSON.stringify(entry.body)};`,
      ),
    ];
    await writeFile(join(directory, "bodies.mts"), `${lines.join("\n")}\n`);
    await writeFile(
      join(directory, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          skipLibCheck: true,
          types: [],
        },
        files: ["bodies.mts"],
      }),
    );
    let output: string;
    try {
      await run(process.execPath, [tsc, "-p", join(directory, "tsconfig.json"), "--pretty", "false"], {
        maxBuffer: 256 * 1024 * 1024,
      });
      return [];
    } catch (thrown) {
      const failed = thrown as { stdout?: string; stderr?: string; message: string };
      output = `${failed.stdout ?? ""}${failed.stderr ?? ""}`;
      if (output.trim().length === 0) throw new Error(`tsc failed without output: ${failed.message}`);
    }
    return findingsOf(output, bodies);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The compiler's diagnostics, each attributed to the body on its line. */
function findingsOf(output: string, bodies: readonly BodyUnderCheck[]): SdkFinding[] {
  const findings: SdkFinding[] = [];
  for (const line of output.split("\n")) {
    const match = /(?:^|[\\/])bodies\.mts\((\d+),\d+\): error (TS\d+: .*)$/.exec(line.trim());
    if (match === null) {
      // A diagnostic elsewhere (the types module, the SDKs) means the check itself is broken.
      if (/error TS\d+/.test(line)) throw new Error(`the SDK check did not compile: ${line}`);
      continue;
    }
    const entry = bodies[Number(match[1]) - 2];
    if (entry === undefined) throw new Error(`the SDK check did not compile: ${line}`);
    findings.push({ label: entry.label, message: match[2]!, body: JSON.stringify(entry.body) });
  }
  return findings;
}
