/** Helpers for the built-in tool tests: temporary workspaces and calling a tool like the Worker does. */
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect } from "vitest";
import type { ToolDefinition, ToolOutput } from "../../src/model/tools.js";
import { ToolError } from "../../src/model/tools.js";
import { probeBwrap } from "../../src/tools/bubblewrap.js";
import { startedForDescribe, startedForEachTest } from "../support/started-for-describe.js";

/** A fresh, empty directory; `root` is its real path. */
export interface TempDirectory {
  root: string;
  remove(): Promise<void>;
}

/** Creates an empty directory under `base` (default the OS temp directory). */
export async function makeTempDirectory(prefix = "skein-tools-", base = tmpdir()): Promise<TempDirectory> {
  const root = await realpath(await mkdtemp(path.join(base, prefix)));
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}

/**
 * A temporary directory made before each test of the enclosing scope and removed after it (or,
 * with `each: false`, one for all its tests); read `root` inside tests and hooks.
 */
export function withTempDirectory(options: { prefix?: string; each?: boolean } = {}): {
  readonly root: string;
} {
  const start = () => makeTempDirectory(options.prefix);
  const stop = (directory: TempDirectory) => directory.remove();
  return options.each === false ? startedForDescribe(start, stop) : startedForEachTest(start, stop);
}

/** Calls a tool definition with JSON-encoded `input`, as the Worker would. */
export async function callTool(
  definition: ToolDefinition,
  input: unknown,
  signal: AbortSignal = new AbortController().signal,
): Promise<ToolOutput> {
  const { tool } = definition();
  return tool.execute(JSON.stringify(input), { call_id: "call-1", signal });
}

/** The text of a tool output, whatever its shape. */
export function outputText(output: ToolOutput): string {
  return typeof output === "string" ? output : output.output;
}

/** Whether a tool output is flagged as an error. */
export function isErrorOutput(output: ToolOutput): boolean {
  return typeof output !== "string" && output.is_error === true;
}

/** Awaits `promise`, expecting a ToolError of `kind` whose message matches `message`. */
export async function expectToolError(
  promise: Promise<unknown>,
  kind: ToolError["kind"],
  message?: RegExp,
): Promise<ToolError> {
  const error: unknown = await promise.then(
    (value) => {
      throw new Error(`expected a ToolError(${kind}), got ${JSON.stringify(value)}`);
    },
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ToolError)) throw error;
  expect(error.kind).toBe(kind);
  if (message !== undefined) expect(error.message).toMatch(message);
  return error;
}

/** Fails loudly (never skips) when bwrap cannot build the sandbox on this machine. */
export function requireBwrap(): void {
  const probe = probeBwrap();
  if (!probe.usable) {
    throw new Error(
      `run_command tests need a working bubblewrap: ${probe.reason}. Install it with "apt-get install -y bubblewrap".`,
    );
  }
}
