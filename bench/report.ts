/** Shared output format of every benchmark: a JSON file of figures and a printed table. */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * One measured figure with the baseline measured in the same run. `ratio` is value / baseline
 * (for throughputs higher is better; for durations the unit says which way is better).
 */
export interface Figure {
  name: string;
  /** NaN when the figure cannot be measured yet (written as null, printed as "n/a"). */
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  /** Free-form context: what the baseline is, targets, extra numbers. */
  note?: string;
}

/** A figure whose ratio is computed from value and baseline. */
export function figure(
  name: string,
  value: number,
  unit: string,
  baseline: number | null,
  note?: string,
): Figure {
  const ratio = baseline === null || baseline === 0 ? null : round(value / baseline, 3);
  const result: Figure = {
    name,
    value: round(value, 3),
    unit,
    baseline: baseline === null ? null : round(baseline, 3),
    ratio,
  };
  if (note !== undefined) result.note = note;
  return result;
}

/** The q-quantile (0..1) of an ascending list of samples; NaN for none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), "results");

/** Write `bench/results/<suite>.json` and print the figures as a table. */
export function writeReport(suite: string, figures: Figure[]): void {
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${suite}.json`), `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\n${suite}`);
  console.table(
    figures.map((f) => ({
      name: f.name,
      // A figure the daemon cannot give yet (NaN; null in the JSON) reads "n/a".
      value: Number.isFinite(f.value) ? f.value : "n/a",
      unit: f.unit,
      baseline: f.baseline,
      ratio: f.ratio,
      note: f.note ?? "",
    })),
  );
}

/** `figures` in place of the same-named ones of the suite's last report (for a partial run). */
export function mergeWithLast(suite: string, figures: Figure[]): Figure[] {
  const file = join(resultsDir, `${suite}.json`);
  const last = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Figure[]) : [];
  const fresh = new Map(figures.map((f) => [f.name, f]));
  const merged = last.map((f) => fresh.get(f.name) ?? f);
  for (const f of figures) if (!last.some((old) => old.name === f.name)) merged.push(f);
  return merged;
}
