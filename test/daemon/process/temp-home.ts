/** Fresh temporary homes for the process tests. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureHome } from "../../../src/daemon/process/home.js";

const made: string[] = [];

/** A new empty directory (its `home` child does not exist yet). */
export function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "skein-process-"));
  made.push(root);
  return root;
}

/** Remove every directory made by tempRoot. */
export function removeTempRoots(): void {
  for (const root of made.splice(0)) rmSync(root, { recursive: true, force: true });
}

/** A new home, created and secured as the daemon creates it. */
export function newHome(): string {
  const home = join(tempRoot(), "home");
  ensureHome(home);
  return home;
}
