/**
 * Reading a home file that may not exist yet (config.json, secrets.json): absent is a normal
 * state, any other failure is the file's own typed error.
 *
 * Boundary rule: reading only; each file's parser decides what the text means.
 */
import { readFileSync } from "node:fs";

/** `path`'s text, or null when it does not exist; other failures become `unreadable(reason, cause)`. */
export function readOptionalText(
  path: string,
  unreadable: (reason: string, cause: unknown) => Error,
): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw unreadable(`it cannot be read (${(error as Error).message})`, error);
  }
}
