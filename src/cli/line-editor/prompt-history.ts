/**
 * The chat's prompt history, kept per workspace between runs: `<home>/history/<hash>.jsonl`,
 * one JSON string per line (so multi-line prompts survive), file mode 0600, the newest last,
 * at most `limit` prompts. A missing or damaged file is an empty history, never an error: the
 * history is a convenience and must not keep a chat from starting.
 *
 * Boundary rule: file I/O of the history only; navigation (up/down, Ctrl-R) is the editor's.
 */
import { createHash } from "node:crypto";
import { appendFileSync, chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const defaultLimit = 1000;

/** The history file of one workspace. */
export function historyPath(home: string, workspace: string): string {
  const hash = createHash("sha256").update(workspace).digest("hex").slice(0, 24);
  return join(home, "history", `${hash}.jsonl`);
}

/** Prompts of one workspace, oldest first, saved as they are added. */
export class PromptHistory {
  readonly #entries: string[];

  private constructor(
    private readonly path: string | null,
    entries: string[],
    private readonly limit: number,
  ) {
    this.#entries = entries;
  }

  /** The history at `path` (null: kept in memory only, e.g. for piped input). */
  static load(path: string | null, limit = defaultLimit): PromptHistory {
    return new PromptHistory(path, path === null ? [] : readEntries(path).slice(-limit), limit);
  }

  /** Oldest first. */
  get entries(): readonly string[] {
    return this.#entries;
  }

  /** Add a prompt (a repeat of the newest is not added again) and save it. */
  add(prompt: string): void {
    if (prompt.trim() === "" || this.#entries.at(-1) === prompt) return;
    this.#entries.push(prompt);
    const overflow = this.#entries.length > this.limit;
    if (overflow) this.#entries.splice(0, this.#entries.length - this.limit);
    if (this.path === null) return;
    try {
      mkdirSync(join(this.path, ".."), { recursive: true, mode: 0o700 });
      if (overflow) {
        writeFileSync(this.path, this.#entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), {
          mode: 0o600,
        });
      } else {
        appendFileSync(this.path, `${JSON.stringify(prompt)}\n`, { mode: 0o600 });
      }
      chmodSync(this.path, 0o600);
    } catch {
      // A history that cannot be saved (read-only home) still works for this run.
    }
  }
}

function readEntries(path: string): string[] {
  let raw: string;
  try {
    raw = readFileSync(path, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of raw.split("\n")) {
    if (line === "") continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === "string") entries.push(value);
    } catch {
      // A torn last line (a crash mid-write) is skipped.
    }
  }
  return entries;
}
