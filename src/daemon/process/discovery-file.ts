/**
 * Publishing `$SKEIN_HOME/daemon.json`, how clients find the running daemon.
 *
 * Boundary rule: the daemon writes the file once its listener is up and removes it on a clean
 * shutdown; its shape and its reader are the contract's (src/home/discovery-file.ts). It holds
 * the bearer token, so it is written with mode 0600.
 */
import { unlink } from "node:fs/promises";
import { syncDirectory, writeFileAtomic } from "../../home/atomic-file.js";
import { type DiscoveryInfo, readDiscoveryFile } from "../../home/discovery-file.js";
import { homePaths } from "../../home/home.js";

/** Atomically publish daemon.json (mode 0600) in `home`. */
export async function writeDiscoveryFile(home: string, info: DiscoveryInfo): Promise<void> {
  await writeFileAtomic(homePaths(home).discovery, `${JSON.stringify(info)}\n`, 0o600);
}

/** Remove daemon.json only if it still names this daemon (a successor may have replaced it). */
export async function removeDiscoveryFile(
  home: string,
  owner: { pid: number; instance_id: string },
): Promise<boolean> {
  let current: DiscoveryInfo | null;
  try {
    current = readDiscoveryFile(home);
  } catch {
    return false;
  }
  if (current === null || current.pid !== owner.pid || current.instance_id !== owner.instance_id)
    return false;
  try {
    await unlink(homePaths(home).discovery);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  await syncDirectory(home);
  return true;
}

/**
 * The instance id in the daemon.json a previous daemon of `home` left (a crash leaves it; a
 * clean stop removes it), or null. Read before this daemon writes its own.
 */
export function previousInstanceId(home: string): string | null {
  try {
    return readDiscoveryFile(home)?.instance_id ?? null;
  } catch {
    return null;
  }
}
