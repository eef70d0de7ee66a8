/**
 * The temporary sibling a file write goes through (`.<name>.<pid>-<random>.skein-tmp`, renamed
 * over the target when complete), and the sweep that removes siblings a killed writer left
 * behind: the writer's pid is in the name, so a sibling whose writer is gone (or is this
 * process, which is not writing it now: a restarted daemon can get its predecessor's pid) is
 * garbage, while one of a live process (another daemon writing the same workspace) is kept.
 *
 * Boundary rule: names and removals inside one pinned directory; the caller creates the file.
 */
import { randomBytes } from "node:crypto";
import { readdir, unlink } from "node:fs/promises";
import { processAlive } from "../model/process-alive.js";
import type { PinnedDirectory } from "./pinned-directory.js";

const SUFFIX = ".skein-tmp";
const WRITER = /^(\d+)-[0-9a-f]{12}$/;

/** Names of the siblings this process is writing now. */
const inFlight = new Set<string>();

/** A fresh sibling name for `name`, marked in flight until `release` is called with it. */
export function claimTemporaryName(name: string): string {
  const sibling = `.${name}.${process.pid}-${randomBytes(6).toString("hex")}${SUFFIX}`;
  inFlight.add(sibling);
  return sibling;
}

/** The write through `sibling` is over (renamed or removed). */
export function releaseTemporaryName(sibling: string): void {
  inFlight.delete(sibling);
}

/** Remove the siblings of `name` in `directory` whose writer is gone; best effort, never throws. */
export async function sweepTemporarySiblings(directory: PinnedDirectory, name: string): Promise<void> {
  const prefix = `.${name}.`;
  let names: string[];
  try {
    names = await readdir(directory.self);
  } catch {
    return;
  }
  for (const candidate of names) {
    if (!candidate.startsWith(prefix) || !candidate.endsWith(SUFFIX)) continue;
    const writer = WRITER.exec(candidate.slice(prefix.length, -SUFFIX.length));
    if (writer === null) continue;
    const pid = Number(writer[1]);
    const live = pid === process.pid ? inFlight.has(candidate) : processAlive(pid);
    if (!live) await unlink(directory.entry(candidate)).catch(() => undefined);
  }
}
