import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import type { HashedEntry } from "../../src/log/entries.js";
import { buildChain, canonicalTextOf, computeHash, hashEntry } from "../../src/log/entry-hash.js";
import {
  AppendConflictError,
  LockTimeoutError,
  LogCorruptError,
  SessionNotFoundError,
} from "../../src/log/errors.js";
import { FsStore } from "../../src/log/fs-store.js";
import { readStoredHead, writeNextHead } from "../../src/log/head-file.js";
import { encodeRecordLine } from "../../src/log/jsonl-record.js";
import { userMessage } from "../../src/model/items.js";
import { expectEveryByteChangeCaught } from "./byte-flips.js";
import { expectNoInterleaving } from "./concurrent-writers.js";
import { describeStoreContract, sampleEntries, writeSession } from "./store-contract.js";
import { withTempStore } from "./temp-store.js";

const lockWaiter = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "lock-waiter.ts");

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "skein-fs-store-"));
}

/** Change the first digit of the entry's ts on line `position`: still valid JSON, different content. */
function corruptLine(file: string, position: number): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const line = lines[position]!;
  const at = line.indexOf('"ts":') + 5;
  const digit = line[at] === "9" ? "8" : String(Number(line[at]) + 1);
  lines[position] = line.slice(0, at) + digit + line.slice(at + 1);
  writeFileSync(file, lines.join("\n"));
}

describeStoreContract("FsStore", async (options = {}) => {
  const dir = tempDir();
  const store = await FsStore.open(dir, options);
  const keepLines = (file: string, keep: number, extra: readonly string[] = []) => {
    const lines = readFileSync(file, "utf8").split("\n").slice(0, keep);
    writeFileSync(file, [...lines, ...extra].map((line) => `${line}\n`).join(""));
  };
  return {
    store,
    openAnother: async () => new FsStore(dir, options),
    corruptEntry: async (sessionId, position) => corruptLine(store.sessionFile(sessionId), position),
    cutTail: async (sessionId, keep) => keepLines(store.sessionFile(sessionId), keep),
    rewriteTail: async (sessionId, from, chain, signed) => {
      const lines = chain.map((hashed) => encodeRecordLine(hashed, canonicalTextOf(hashed)));
      keepLines(store.sessionFile(sessionId), from, lines);
      const paths = { slots: store.headFile(sessionId), legacy: store.legacyHeadFile(sessionId) };
      const { newest } = readStoredHead(sessionId, paths);
      writeNextHead(paths, null, newest, {
        ...newest!.record,
        position: from + chain.length - 1,
        hash: chain.at(-1)!.hash,
        ...(signed === undefined ? {} : { signed }),
      });
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
});

describe("FsStore", () => {
  const t = withTempStore("skein-fs-store-", (dir) => new FsStore(dir));

  it("stores one {hash, prev_hash, entry} object per line with the canonical entry", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    const text = readFileSync(t.store.sessionFile(id), "utf8");
    expect(text.endsWith("\n")).toBe(true);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[1]!)).toEqual({
      hash: chain[1]!.hash,
      prev_hash: chain[0]!.hash,
      entry: chain[1]!.entry,
    });
    expect(lines[1]).toBe(
      `{"hash":"${chain[1]!.hash}","prev_hash":"${chain[0]!.hash}","entry":${canonicalJson(chain[1]!.entry)}}`,
    );
  });

  it("ignores a torn last line and cuts it off before the next append", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(3));
    const file = t.store.sessionFile(id);
    const committed = readFileSync(file, "utf8");
    appendFileSync(file, '{"hash":"0123","prev_hash":nu');

    expect(await t.store.readAll(id)).toHaveLength(3);
    expect(await t.store.readHead(id)).toEqual({ hash: chain[2]!.hash, position: 2 });
    expect((await t.store.readRange(id, 2, 5)).map((e) => e.position)).toEqual([2]);

    const next = hashEntry(chain[2]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
    await t.store.append(id, [next]);
    const after = readFileSync(file, "utf8");
    expect(after.startsWith(committed)).toBe(true);
    expect(after.slice(committed.length)).toBe(`${encodeRecordLine(next, canonicalJson(next.entry))}\n`);
    expect((await t.store.readAll(id)).map((e) => e.hash)).toEqual([...chain.map((e) => e.hash), next.hash]);
  });

  it("cuts a torn tail left behind a stale head cache too", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    // Another process appended one entry, then crashed half-way through a second.
    const other = new FsStore(t.dir);
    const third = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 });
    await other.append(id, [third]);
    appendFileSync(t.store.sessionFile(id), '{"hash":"ab');
    const fourth = hashEntry(third.hash, { kind: "turn_end", ts: 4, turn_count: 2 });
    expect(await t.store.append(id, [fourth])).toEqual({ hash: fourth.hash, position: 3 });
    expect(await t.store.readAll(id)).toHaveLength(4);
  });

  it("treats a file holding only a torn line as a session that does not exist yet", async () => {
    const id = uuidv7();
    writeFileSync(t.store.sessionFile(id), '{"hash":"abc"');
    expect(await t.store.exists(id)).toBe(false);
    expect(await t.store.readHead(id)).toBeNull();
    expect(await t.store.listSessions()).toEqual([]);
    await expect(t.store.readAll(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await writeSession(t.store, id, sampleEntries(1));
    expect(await t.store.readAll(id)).toHaveLength(1);
  });

  it("detects a tampered byte in a stored line and names its position", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(5));
    const file = t.store.sessionFile(id);
    writeFileSync(file, readFileSync(file, "utf8").replace("question 3", "questioN 3"));
    const error = await t.corruptionOf(id);
    expect(error.position).toBe(3);
    expect(error.reason).toContain("hash mismatch");
  });

  it("detects a change that keeps the JSON meaning but not the stored bytes", async () => {
    const id = uuidv7();
    const chain = buildChain(null, [
      sampleEntries(1)[0]!,
      { kind: "user_input", ts: 2, item: userMessage("escape\u001b") },
    ]);
    for (const hashed of chain) await t.store.append(id, [hashed]);
    const file = t.store.sessionFile(id);
    const text = readFileSync(file, "utf8");
    expect(text).toContain("\\u001b");
    // Same string once parsed, different bytes on disk.
    writeFileSync(file, text.replace("\\u001b", "\\u001B"));
    expect((await t.corruptionOf(id)).position).toBe(1);
  });

  it("detects a removed middle line", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(5));
    const file = t.store.sessionFile(id);
    const lines = readFileSync(file, "utf8").split("\n");
    lines.splice(2, 1);
    writeFileSync(file, lines.join("\n"));
    const error = await t.corruptionOf(id);
    expect(error.position).toBe(2);
    expect(error.reason).toContain("prev_hash");
  });

  it("detects a wrong prev_hash even when the line's own hash was recomputed", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(4));
    const forgedPrev = chain[0]!.hash;
    const forged: HashedEntry = {
      hash: computeHash(forgedPrev, chain[2]!.entry),
      prev_hash: forgedPrev,
      entry: chain[2]!.entry,
    };
    const file = t.store.sessionFile(id);
    const lines = readFileSync(file, "utf8").split("\n");
    lines[2] = encodeRecordLine(forged, canonicalJson(forged.entry));
    writeFileSync(file, lines.join("\n"));
    expect((await t.corruptionOf(id)).position).toBe(2);
  });

  it("reports a newline-terminated line that does not parse as corruption, not a torn tail", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(3));
    appendFileSync(t.store.sessionFile(id), "not json\n");
    const error = await t.corruptionOf(id);
    expect(error.position).toBe(3);
    expect(error.reason).toContain("unparseable");
    // Nothing is chained onto a corrupt head either.
    const next = hashEntry(chain[2]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
    await expect(t.store.append(id, [next])).rejects.toBeInstanceOf(LogCorruptError);
  });

  it("reports invalid UTF-8 inside a committed line as corruption", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(3));
    const file = t.store.sessionFile(id);
    const bytes = readFileSync(file);
    const at = bytes.indexOf("question 1");
    bytes[at] = 0xff;
    writeFileSync(file, bytes);
    expect((await t.corruptionOf(id)).position).toBe(1);
  });

  it("detects any single-byte change to a stored line at that line's position", async () => {
    await expectEveryByteChangeCaught(
      () => t.store,
      ({ sessionId, pick, offset, delta }) => {
        const file = t.store.sessionFile(sessionId);
        const bytes = readFileSync(file);
        const starts = [0];
        for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 0x0a) starts.push(i + 1);
        const position = pick % starts.length;
        const lineEnd = bytes.indexOf(0x0a, starts[position]!);
        // Any byte of the line's JSON (its newline terminator is framing, not content).
        const at = starts[position]! + (offset % (lineEnd - starts[position]!));
        bytes[at] = (bytes[at]! + delta) % 256;
        writeFileSync(file, bytes);
        return position;
      },
    );
  });

  it("never trusts a head cache across a delete and a same-size re-creation", async () => {
    const id = uuidv7();
    const mine = await writeSession(t.store, id, [
      sampleEntries(1)[0]!,
      { kind: "user_input", ts: 2, item: userMessage("version A") },
    ]);
    const other = new FsStore(t.dir);
    await other.deleteSession(id);
    await writeSession(other, id, [
      sampleEntries(1)[0]!,
      { kind: "user_input", ts: 2, item: userMessage("version B") },
    ]);
    const next = hashEntry(mine[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 });
    await expect(t.store.append(id, [next])).rejects.toBeInstanceOf(AppendConflictError);
  });

  it("updates the head file in place: the same file across appends, never one replaced by rename", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    const before = statSync(t.store.headFile(id));
    await t.store.append(id, [hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 })]);
    const after = statSync(t.store.headFile(id));
    expect(after.ino).toBe(before.ino);
    expect(after.size).toBe(1024);
    expect(await t.store.readHeadRecord(id)).toMatchObject({ position: 2 });
  });

  it("keeps a torn head slot from making the log unreadable, and still detects a cut behind the older head", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(5));
    const headFile = t.store.headFile(id);
    // The last append wrote position 4 into one slot; a crash tore that write half-way.
    const bytes = readFileSync(headFile);
    const newest = [0, 1].find((slot) =>
      bytes.toString("latin1", slot * 512, slot * 512 + 512).includes('"position":4'),
    )!;
    bytes.fill(0x20, newest * 512 + 100, newest * 512 + 512);
    writeFileSync(headFile, bytes);

    expect(await t.store.readHeadRecord(id)).toMatchObject({ position: 3, hash: chain[3]!.hash });
    expect(await t.store.readAll(id)).toHaveLength(5);
    expect(await t.store.readHead(id)).toEqual({ hash: chain[4]!.hash, position: 4 });
    // A cut behind the older head is still found.
    const file = t.store.sessionFile(id);
    const log = readFileSync(file);
    const lines = log.toString("utf8").split("\n");
    writeFileSync(
      file,
      lines
        .slice(0, 3)
        .map((line) => `${line}\n`)
        .join(""),
    );
    expect((await t.corruptionOf(id)).position).toBe(3);
    writeFileSync(file, log);
    // The next append writes into the torn slot, never over the older head.
    const next = hashEntry(chain[4]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
    await t.store.append(id, [next]);
    expect(await t.store.readHeadRecord(id)).toMatchObject({ position: 5, hash: next.hash });
    const slots = readFileSync(headFile);
    expect(slots.toString("latin1", (1 - newest) * 512, (2 - newest) * 512)).toContain('"position":3');
  });

  it("counts a head file in which no slot was ever fully written (a crash) as no recorded head", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(3));
    writeFileSync(t.store.headFile(id), Buffer.alloc(1024));
    expect(await t.store.readHeadRecord(id)).toBeNull();
    expect(await t.store.readAll(id)).toHaveLength(3);
    const next = hashEntry(chain[2]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
    expect(await t.store.append(id, [next])).toEqual({ hash: next.hash, position: 3 });
    expect(await t.store.readHeadRecord(id)).toMatchObject({ position: 3, hash: next.hash });
  });

  it("reads the head an older version recorded in <id>.head.json, detects a cut behind it, and moves on to the slot file", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(4));
    // What an older version left: the same log, its head in a JSON file, no slot file.
    rmSync(t.store.headFile(id));
    writeFileSync(
      t.store.legacyHeadFile(id),
      `${JSON.stringify({ position: 3, hash: chain[3]!.hash, signed: null })}\n`,
    );
    const fresh = new FsStore(t.dir);
    expect(await fresh.readHeadRecord(id)).toEqual({ position: 3, hash: chain[3]!.hash, signed: null });
    expect(await fresh.readAll(id)).toHaveLength(4);

    const next = hashEntry(chain[3]!.hash, { kind: "turn_end", ts: 9, turn_count: 1 });
    await fresh.append(id, [next]);
    expect(existsSync(t.store.headFile(id))).toBe(true);
    expect(await fresh.readHeadRecord(id)).toMatchObject({ position: 4, hash: next.hash });

    // A bad legacy file still reads as corruption while it is the only record.
    rmSync(t.store.headFile(id));
    writeFileSync(t.store.legacyHeadFile(id), "{not json");
    await expect(fresh.readAll(id)).rejects.toBeInstanceOf(LogCorruptError);
    writeFileSync(
      t.store.legacyHeadFile(id),
      `${JSON.stringify({ position: 3, hash: chain[3]!.hash, signed: null })}\n`,
    );
    const lines = readFileSync(t.store.sessionFile(id), "utf8").split("\n");
    writeFileSync(
      t.store.sessionFile(id),
      lines
        .slice(0, 2)
        .map((line) => `${line}\n`)
        .join(""),
    );
    expect((await t.corruptionOf(id)).position).toBe(2);
    await fresh.deleteSession(id);
    expect(existsSync(t.store.legacyHeadFile(id))).toBe(false);
  });

  it("keeps its lock file across appends that follow each other at once, and removes it once idle or closed", async () => {
    const id = uuidv7();
    const chain = buildChain(null, sampleEntries(3));
    const lockPath = `${t.store.sessionFile(id)}.lock`;
    await t.store.append(id, [chain[0]!]);
    const kept = statSync(lockPath);
    await t.store.append(id, [chain[1]!]);
    expect(statSync(lockPath).ino).toBe(kept.ino);
    await new Promise((resolve) => setImmediate(resolve));
    expect(existsSync(lockPath)).toBe(false);
    await t.store.append(id, [chain[2]!]);
    expect(existsSync(lockPath)).toBe(true);
    await t.store.close();
    expect(existsSync(lockPath)).toBe(false);
  });

  it("removes a waiting mark left by a crashed waiter on its next append", async () => {
    const id = uuidv7();
    const chain = buildChain(null, sampleEntries(2));
    await t.store.append(id, [chain[0]!]);
    const mark = `${t.store.sessionFile(id)}.lock.wait`;
    writeFileSync(mark, "");
    const then = new Date(Date.now() - 5_000);
    utimesSync(mark, then, then);
    await t.store.append(id, [chain[1]!]);
    expect(existsSync(mark)).toBe(false);
    expect(await t.store.readAll(id)).toHaveLength(2);
  });

  it("takes the lock anew, waiting for its holder, when the kept lock file was replaced by another process", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    const lockPath = `${t.store.sessionFile(id)}.lock`;
    expect(existsSync(lockPath)).toBe(true);
    // Another (live) process broke the kept lock as stale and holds its own now.
    rmSync(lockPath);
    writeFileSync(lockPath, `${process.ppid} ${Date.now() - 5_000_000} live-holder\n`);
    const impatient = new FsStore(t.dir, { lock: { timeoutMs: 150 } });
    const next = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 });
    await expect(impatient.append(id, [next])).rejects.toBeInstanceOf(LockTimeoutError);
    expect(readFileSync(lockPath, "utf8")).toContain("live-holder");
    expect(await t.store.readAll(id)).toHaveLength(2);
  });

  it("hands its kept lock to a process waiting for it, between two appends", async () => {
    const id = uuidv7();
    let headHash = (await writeSession(t.store, id, sampleEntries(1)))[0]!.hash;
    const waiter = spawn(process.execPath, ["--import", "tsx", lockWaiter, t.dir, id, "3000", "wait"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let output = "";
    waiter.stdout.setEncoding("utf8");
    waiter.stdout.on("data", (chunk: string) => {
      output += chunk;
    });
    while (!output.includes("ready\n")) await new Promise((resolve) => setTimeout(resolve, 10));
    const exited = once(waiter, "exit");
    waiter.stdin.end("go\n");
    // Append back to back, never idle for a turn of the event loop, for longer than the waiter's lock timeout.
    const started = Date.now();
    let turn = 0;
    while (waiter.exitCode === null && Date.now() - started < 6_000) {
      const next = hashEntry(headHash, { kind: "turn_end", ts: turn, turn_count: turn });
      try {
        await t.store.append(id, [next]);
        headHash = next.hash;
      } catch (error) {
        // The waiter's entry went in between.
        if (!(error instanceof AppendConflictError)) throw error;
        headHash = (await t.store.readHead(id))!.hash;
      }
      turn++;
    }
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(Number(output.trim().split("\n").at(-1))).toBeLessThan(3_000);
    expect((await t.store.readAll(id)).some((e) => e.entry.kind === "user_input")).toBe(true);
  });

  it("leaves no lock file behind when the process exits right after an append", async () => {
    const id = uuidv7();
    await writeSession(t.store, id, sampleEntries(1));
    // spawnSync blocks this process's event loop: let it end its kept lock first.
    await new Promise((resolve) => setImmediate(resolve));
    const child = spawnSync(process.execPath, ["--import", "tsx", lockWaiter, t.dir, id, "3000", "exit"], {
      encoding: "utf8",
    });
    expect(child.status).toBe(0);
    expect(await t.store.readAll(id)).toHaveLength(2);
    expect(existsSync(`${t.store.sessionFile(id)}.lock`)).toBe(false);
  });

  it("breaks a lock left behind by a dead process", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
      encoding: "utf8",
    });
    const lockPath = `${t.store.sessionFile(id)}.lock`;
    writeFileSync(lockPath, `${dead.stdout} ${Date.now()} leftover\n`);
    await t.store.append(id, [hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 })]);
    expect(await t.store.readAll(id)).toHaveLength(3);
    expect(existsSync(lockPath)).toBe(false);
  });

  it("waits for a lock held by a live process and gives up with a typed error", async () => {
    const id = uuidv7();
    const chain = await writeSession(t.store, id, sampleEntries(2));
    const impatient = new FsStore(t.dir, { lock: { timeoutMs: 150 } });
    const lockPath = `${t.store.sessionFile(id)}.lock`;
    writeFileSync(lockPath, `${process.ppid} ${Date.now() - 5_000_000} live-holder\n`);
    const next = hashEntry(chain[1]!.hash, { kind: "turn_end", ts: 3, turn_count: 1 });
    await expect(impatient.append(id, [next])).rejects.toBeInstanceOf(LockTimeoutError);
    rmSync(lockPath);
    await impatient.append(id, [next]);
    expect(await t.store.readAll(id)).toHaveLength(3);
  });

  it("never interleaves a chain when another process appends concurrently", async () => {
    await expectNoInterleaving(t.store, "fs", t.dir);
  });
});
