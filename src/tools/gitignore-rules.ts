/**
 * The `.gitignore` files met on a walk down a directory tree, and whether they ignore a path.
 *
 * Boundary rule: rules come only from `.gitignore` files inside the searched directory (its own
 * and those below it), the same set ripgrep reads with `--no-ignore-parent --no-require-git`;
 * a deeper file's verdict (ignore or `!` re-include) wins over a shallower one's, as in git.
 */
import ignore, { type Ignore } from "ignore";

/** The rules of one `.gitignore`, anchored at `base` (a path relative to the searched directory, "" for it). */
interface RuleFile {
  base: string;
  rules: Ignore;
}

/** The `.gitignore` files in force in one directory of the walk, outermost first. */
export class GitignoreStack {
  private constructor(private readonly files: readonly RuleFile[]) {}

  /** No rules. */
  static readonly empty = new GitignoreStack([]);

  /** This stack with the rules of the `.gitignore` text found in `base` added (innermost). */
  with(base: string, text: string): GitignoreStack {
    return new GitignoreStack([
      ...this.files,
      { base, rules: ignore({ allowRelativePaths: true }).add(text) },
    ]);
  }

  /** Whether `relative` (a path from the searched directory, "/"-separated) is ignored. */
  ignores(relative: string, isDirectory: boolean): boolean {
    for (let index = this.files.length - 1; index >= 0; index--) {
      const file = this.files[index];
      if (file === undefined) continue;
      const inside = file.base === "" ? relative : relative.slice(file.base.length + 1);
      const verdict = file.rules.test(isDirectory ? `${inside}/` : inside);
      if (verdict.ignored) return true;
      if (verdict.unignored) return false;
    }
    return false;
  }
}
