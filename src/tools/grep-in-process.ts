/**
 * The in-process `grep` engine, used when ripgrep is not installed: walks the files as
 * `walkFiles` sees them and tests each line with a JavaScript RegExp.
 *
 * Boundary rule: it must find what the ripgrep engine finds on the same tree (a property test
 * compares them): files with a NUL byte count as binary and are skipped, lines are split on
 * "\n", a UTF-8 byte-order mark is dropped, and files over `MAX_GREP_FILE_BYTES` are skipped.
 */
import path from "node:path";
import { ToolError } from "../model/tools.js";
import {
  GREP_TIMEOUT_MS,
  type GrepMatch,
  type GrepSearch,
  MAX_GREP_FILE_BYTES,
  shownLine,
  visibleResult,
} from "./grep-search.js";
import { PinnedDirectory } from "./pinned-directory.js";
import { readWithoutFollowing, walkFiles } from "./workspace-walk.js";

/** Calls `found` with every matching line of the files `search` covers that `keep` keeps. */
export async function searchInProcess(
  search: GrepSearch,
  keep: (relative: string) => boolean,
  found: (match: GrepMatch) => void,
): Promise<void> {
  const searchFile = async (relative: string, reachable: string): Promise<void> => {
    const bytes = await readWithoutFollowing(reachable, MAX_GREP_FILE_BYTES);
    if (bytes === null || bytes.includes(0)) return;
    const lines = new TextDecoder("utf-8").decode(bytes).split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    lines.forEach((line, index) => {
      if (search.regex.test(line)) found({ path: relative, line: index + 1, text: shownLine(line) });
    });
  };
  if (search.target === "file") {
    if (!keep(path.basename(search.start)) || !visibleResult(search, "")) return;
    const directory = await PinnedDirectory.openBeneath(
      search.realRoot,
      path.dirname(search.start),
      search.requested,
    );
    try {
      await searchFile("", directory.entry(path.basename(search.start)));
    } finally {
      await directory.close();
    }
    return;
  }
  await walkFiles(
    search.start,
    search.requested,
    { realRoot: search.realRoot, hidden: search.hidden, signal: search.signal },
    async (file) => {
      if (search.signal.aborted)
        throw new ToolError(
          "execution_failed",
          `grep: the search was stopped (cancelled, or longer than ${GREP_TIMEOUT_MS / 1000} s: narrow the path or glob)`,
        );
      if (keep(file.relative)) await searchFile(file.relative, file.reachable);
    },
  );
}
