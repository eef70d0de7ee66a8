/**
 * The version of the installed Skein package, as `skein --version` prints it and `GET /server`
 * reports it.
 *
 * Boundary rule: reads package.json only. It is found upward from this module, which sits in
 * src/api (sources), dist/api (compiled) or dist itself (the daemon bundle).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The package's version, or "0.0.0" when its package.json cannot be found. */
export function packageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth++) {
    try {
      const parsed = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
        name?: string;
        version?: string;
      };
      if (parsed.name === "skein" && typeof parsed.version === "string") return parsed.version;
    } catch {
      // no package.json here; look one level up
    }
    directory = dirname(directory);
  }
  return "0.0.0";
}
