/** The types of network-probe.mjs (plain JavaScript, so that a sandbox runs it with node alone). */

/** What to try. */
export interface ProbeRequest {
  tcp?: Array<{ host: string; port: number }>;
  write?: string[];
  read?: string[];
}

/** What happened: `"open"`/`"written"`, the file's text, or the error code. */
export interface ProbeReport {
  tcp: Record<string, string>;
  write: Record<string, string>;
  read: Record<string, string>;
  env: { HOME: string | null; TMPDIR: string | null };
}

/** Runs every probe of `request`. */
export function probe(request: ProbeRequest): Promise<ProbeReport>;

/** Copies the probe script into `directory` (as `network-probe.mjs`) and returns the copy's path. */
export function writeProbeScript(directory: string): string;
