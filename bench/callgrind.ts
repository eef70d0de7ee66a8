/**
 * What the benches that count a daemon's instructions under valgrind's callgrind share
 * (bench/instructions.ts, bench/creation.ts, bench/snapshot-reads.ts): the launcher, zeroing
 * and dumping the counters of a running daemon, and the total of its last dump.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The launcher of a daemon under callgrind, its dumps written into `outDir` (which must exist). */
export function callgrindLauncher(outDir: string): string[] {
  return [
    "valgrind",
    "--tool=callgrind",
    "--smc-check=all-non-file",
    "--dump-instr=no",
    `--callgrind-out-file=${join(outDir, "callgrind.out.%p")}`,
  ];
}

/** Sends a command to the callgrind of `pid` (zero the counters, or dump them). */
export function callgrindControl(pid: number, option: "--zero" | "--dump"): void {
  execFileSync("callgrind_control", [option, String(pid)], { stdio: "ignore" });
}

/** The instructions of the last dump written in `dir`: the sum of its `totals:` / `summary:` lines. */
export function lastDumpTotal(dir: string, pid: number): number {
  const dumps = readdirSync(dir)
    .filter((name) => name.startsWith(`callgrind.out.${pid}.`))
    .sort((a, b) => Number(a.split(".").pop()) - Number(b.split(".").pop()));
  const last = dumps.at(-1);
  if (last === undefined) throw new Error(`no callgrind dump of ${pid} in ${dir}`);
  const content = readFileSync(join(dir, last), "utf8");
  const line = /^(?:totals|summary): (\d+)/m.exec(content);
  if (line === null) throw new Error(`no totals in ${join(dir, last)}`);
  return Number(line[1]);
}
