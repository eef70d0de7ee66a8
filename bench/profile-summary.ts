/**
 * `tsx bench/profile-summary.ts <file.cpuprofile> [top] [fromUs,toUs]`: the top functions of a
 * V8 CPU profile (as `node --cpu-prof` writes it, see bench/profile-daemon.ts) by self time and
 * by total time (a function's own time plus everything it called, recursion counted once), in
 * ms and in percent of the profile. A window (CLOCK_MONOTONIC µs, as profile-daemon prints it)
 * keeps only the samples taken inside it. Not a suite of `npm run bench`.
 */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  /** CLOCK_MONOTONIC µs of the first sample's base. */
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A function's name and where it is (file name and 1-based line), or V8's own label. */
function keyOf(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  if (url === "") return functionName === "" ? "(anonymous)" : functionName;
  const file = url.replace(/^file:\/\//, "").replace(/^.*\/(node_modules\/)/, "$1");
  const short = file.includes("node_modules/") ? file : file.split("/").slice(-2).join("/");
  return `${functionName === "" ? "(anonymous)" : functionName} ${short}:${lineNumber + 1}`;
}

/** Self and total µs per function key, and the profile's whole µs. */
export function summarize(
  profile: CpuProfile,
  window: { from: number; to: number } | null = null,
): {
  self: Map<string, number>;
  total: Map<string, number>;
  all: number;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfOfNode = new Map<number, number>();
  let all = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (window !== null && (at < window.from || at > window.to)) return;
    const delta = Math.max(0, profile.timeDeltas[i] ?? 0);
    selfOfNode.set(id, (selfOfNode.get(id) ?? 0) + delta);
    all += delta;
  });
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  // Depth-first from the root; `open` holds the keys already on the path (recursion counted once).
  const visit = (id: number, open: Set<string>): number => {
    const node = byId.get(id);
    if (node === undefined) return 0;
    const key = keyOf(node);
    const own = selfOfNode.get(id) ?? 0;
    self.set(key, (self.get(key) ?? 0) + own);
    const outer = open.has(key);
    if (!outer) open.add(key);
    let sum = own;
    for (const child of node.children ?? []) sum += visit(child, open);
    if (!outer) {
      open.delete(key);
      total.set(key, (total.get(key) ?? 0) + sum);
    }
    return sum;
  };
  const root = profile.nodes[0];
  if (root !== undefined) visit(root.id, new Set());
  return { self, total, all };
}

function table(title: string, values: Map<string, number>, all: number, top: number): void {
  console.log(`\n${title}`);
  const rows = [...values.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, us] of rows) {
    console.log(
      `${(us / 1000).toFixed(0).padStart(8)} ms ${((100 * us) / all).toFixed(1).padStart(5)}%  ${key}`,
    );
  }
}

const [file, topText = "25", windowText] = process.argv.slice(2);
if (file === undefined) {
  console.error("usage: tsx bench/profile-summary.ts <file.cpuprofile> [top] [fromUs,toUs]");
  process.exit(2);
}
const [from, to] = (windowText ?? "").split(",").map(Number);
const window = from !== undefined && to !== undefined && to > from ? { from, to } : null;
const { self, total, all } = summarize(JSON.parse(readFileSync(file, "utf8")) as CpuProfile, window);
console.log(`${file}: ${(all / 1000).toFixed(0)} ms sampled`);
table("by self time", self, all, Number(topText));
table("by total time (self + callees)", total, all, Number(topText));
