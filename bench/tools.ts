/**
 * `npm run bench -- tools`: what `grep` costs on a 50,000-file tree (500 directories of 100
 * files of 40 lines, a .gitignore leaving out a tenth of them), with ripgrep and with the
 * in-process engine, each against `rg -n --no-require-git` run by hand on the same tree (the floor: the same search
 * with no tool around it). Two patterns: a rare one (3 files match) and a common one (one line
 * of every file matches, so the collector sorts and cuts 45,000 matches). Medians of 5 runs
 * (3 for the in-process engine), after one warm-up run each.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type GrepEngine, grepTool } from "../src/tools/grep.js";
import { findRipgrep } from "../src/tools/grep-ripgrep.js";
import { type Figure, figure, quantile, writeReport } from "./report.js";

const directories = 500;
const filesPerDirectory = 100;

/** Run every tools figure. */
export async function run(): Promise<void> {
  const ripgrep = findRipgrep();
  if (ripgrep === null) throw new Error("the tools bench needs ripgrep (apt-get install -y ripgrep)");
  const root = mkdtempSync(join(tmpdir(), "skein-bench-grep-"));
  try {
    buildTree(root);
    const figures: Figure[] = [];
    for (const [label, pattern] of [
      ["rare", "needle_[0-9]+"],
      ["common", "return value"],
    ] as const) {
      const byHand = median(5, () =>
        timed(() => spawnSync(ripgrep, ["-n", "--no-require-git", pattern, root], { maxBuffer: 1 << 30 })),
      );
      const engines: Array<[string, GrepEngine, number]> = [
        ["ripgrep", { kind: "ripgrep", path: ripgrep }, 5],
        ["in-process", { kind: "in_process" }, 3],
      ];
      for (const [name, engine, runs] of engines) {
        const tool = grepTool(root, [], engine);
        const ms = await medianAsync(runs, () =>
          timedAsync(() =>
            tool().tool.execute(JSON.stringify({ pattern }), {
              call_id: "b",
              signal: new AbortController().signal,
            }),
          ),
        );
        figures.push(
          figure(
            `grep ${label} pattern, ${name} engine`,
            ms,
            "ms (median)",
            byHand,
            `baseline: rg -n --no-require-git by hand on the same tree (${(directories * filesPerDirectory).toLocaleString("en")} files)`,
          ),
        );
      }
    }
    writeReport("tools", figures);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function buildTree(root: string): void {
  writeFileSync(join(root, ".gitignore"), "ignored-*/\n");
  const body = Array.from(
    { length: 39 },
    (_, i) => `  const line${i} = compute(${i}); // some code here`,
  ).join("\n");
  for (let d = 0; d < directories; d++) {
    const directory = join(root, d % 10 === 0 ? `ignored-${d}` : `dir-${d}`);
    mkdirSync(directory);
    for (let f = 0; f < filesPerDirectory; f++) {
      const rare = (d * filesPerDirectory + f) % 16_661 === 7 ? `\n// needle_${d}_${f}` : "";
      writeFileSync(join(directory, `file-${f}.ts`), `${body}\n  return value;${rare}\n`);
    }
  }
}

function timed(action: () => unknown): number {
  const start = performance.now();
  action();
  return performance.now() - start;
}

async function timedAsync(action: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await action();
  return performance.now() - start;
}

function median(runs: number, sample: () => number): number {
  sample();
  const samples = Array.from({ length: runs }, sample).sort((a, b) => a - b);
  return quantile(samples, 0.5);
}

async function medianAsync(runs: number, sample: () => Promise<number>): Promise<number> {
  await sample();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await sample());
  return quantile(
    samples.sort((a, b) => a - b),
    0.5,
  );
}
