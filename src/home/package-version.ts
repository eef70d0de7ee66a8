/**
 * The installed Skein package: its folder and its version, as `skein --version` prints it and
 * `GET /server` reports it.
 *
 * Boundary rule: reads package.json only. It is found upward from this module, which sits in
 * src/home (sources), dist/home (compiled) or dist itself (the daemon bundle).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The folder of the package (where its package.json is) and its version, or null when not found. */
export function packageRoot(): { directory: string; version: string } | null {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    try {
      const parsed = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "skein" && typeof parsed.version === "string") {
        return { directory, version: parsed.version };
      }
    } catch {
      // no package.json here; look one level up
    }
    directory = dirname(directory);
  }
  return null;
}

/** The package's version, or "0.0.0" when its package.json cannot be found. */
export function packageVersion(): string {
  return packageRoot()?.version ?? "0.0.0";
}
