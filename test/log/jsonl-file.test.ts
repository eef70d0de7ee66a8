import { closeSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppendConflictError, SessionNotFoundError } from "../../src/log/errors.js";
import {
  hasCommittedLine,
  openForAppend,
  readSessionFile,
  syncDirectory,
  writeFully,
} from "../../src/log/jsonl-file.js";

describe("jsonl-file", () => {
  let dir: string;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skein-jsonl-file-"));
    file = join(dir, "session.jsonl");
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("counts a file as holding a committed line only once it holds a newline, however far in", async () => {
    expect(await hasCommittedLine(file)).toBe(false);
    writeFileSync(file, "");
    expect(await hasCommittedLine(file)).toBe(false);
    writeFileSync(file, "x".repeat(200 * 1024));
    expect(await hasCommittedLine(file)).toBe(false);
    writeFileSync(file, `${"x".repeat(200 * 1024)}\n`);
    expect(await hasCommittedLine(file)).toBe(true);
  });

  it("creates a missing file only for a first append and reports a conflict otherwise", () => {
    expect(() => openForAppend("s", file, "a".repeat(64))).toThrow(AppendConflictError);
    const fd = openForAppend("s", file, null);
    try {
      writeFully(fd, Buffer.from("one\n"), 0);
      writeFully(fd, Buffer.from("two\n"), 4);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, "utf8")).toBe("one\ntwo\n");
  });

  it("reads a file whole and a missing one as a session not found", async () => {
    await expect(readSessionFile("s", file)).rejects.toBeInstanceOf(SessionNotFoundError);
    writeFileSync(file, "line\n");
    expect((await readSessionFile("s", file)).toString()).toBe("line\n");
    await syncDirectory(dir);
  });
});
