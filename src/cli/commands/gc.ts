/**
 * `skein gc [--dry-run] [--json]`: apply the retention policy now, or say what it would remove.
 *
 * Boundary rule: one POST /gc; the daemon decides, this prints its report.
 */
import type { GcReport } from "../../api/retention.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";

export interface GcOptions {
  dryRun?: boolean;
  json?: boolean;
}

/** Run retention on the daemon and print what it removed (or would remove). */
export async function collectGarbage(context: CliContext, options: GcOptions): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const report = await client.gc(options.dryRun === true);
    const out = context.terminal.out;
    if (options.json === true) writeLine(out, JSON.stringify(report, null, 2));
    else for (const line of reportLines(report)) writeLine(out, line);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** The report in words, one line per session removed or left alone, then the total. */
export function reportLines(report: GcReport): string[] {
  if (report.policy === null) {
    return ['no retention policy: add a "retention" section to config.json (docs/operations.md, Retention)'];
  }
  const verb = report.dry_run ? "would " : "";
  const lines = [
    ...report.deleted.map(
      (d) => `${verb}delete ${d.session_id} (idle; ${d.entries} entries, ${bytesText(d.bytes)})`,
    ),
    ...report.pruned.map(
      (p) =>
        `${verb}prune ${p.session_id} before position ${p.up_to} (${p.entries} entries, ${bytesText(p.bytes)})`,
    ),
    ...report.skipped.map((s) => `keep ${s.session_id}: ${s.reason}`),
  ];
  const total = `${report.dry_run ? "would free" : "freed"} ${bytesText(report.bytes_freed)}: ${report.deleted.length} sessions deleted, ${report.pruned.length} pruned, ${report.skipped.length} kept (${report.duration_ms} ms)`;
  return [...lines, total];
}

function bytesText(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
