import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  establishHeadTrust,
  HeadSigningStateError,
  readHeadSigningState,
} from "../../../src/daemon/process/head-trust.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { SqliteStore } from "../../../src/log/sqlite-store.js";
import { sampleEntries, writeSession } from "../../log/store-contract.js";

describe("establishHeadTrust", () => {
  let home: string;
  const warnings: string[] = [];
  const logger = { warn: (_data: object, message: string) => warnings.push(message) };

  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "skein-head-trust-"));
    warnings.length = 0;
  });

  afterEach(() => rmSync(home, { recursive: true, force: true }));

  /** A database with one session whose head was recorded unsigned, and a store on it with `signer`. */
  async function olderDatabase(signer: HeadSigner): Promise<{ store: SqliteStore; sessionId: string }> {
    const file = join(home, "log.sqlite");
    const unsigned = new SqliteStore(file);
    const sessionId = uuidv7();
    await writeSession(unsigned, sessionId, sampleEntries(3));
    await unsigned.close();
    return { store: new SqliteStore(file, { signer }), sessionId };
  }

  function options(signer: HeadSigner, store: SqliteStore, keyCreated: boolean) {
    return {
      home,
      signer,
      keyCreated,
      signUnsignedHeads: () => store.signUnsignedHeads(),
      configuredKeys: () => [],
      logger,
      now: () => Date.parse("2026-12-06T00:00:00Z"),
    };
  }

  it("signs an older home's unsigned heads once, records it 0600, and never again", async () => {
    const signer = HeadSigner.generate();
    const { store, sessionId } = await olderDatabase(signer);
    try {
      await expect(store.readAll(sessionId)).rejects.toThrow(/not signed/);
      const state = await establishHeadTrust(options(signer, store, false));
      expect(state).toEqual({ every_head_signed_since: "2026-12-06T00:00:00.000Z", signed_at_start: 1 });
      expect(statSync(join(home, "head-signing.json")).mode & 0o777).toBe(0o600);
      expect(await store.readAll(sessionId)).toHaveLength(3);
      expect(warnings.join("\n")).toMatch(/signed the unsigned heads/);

      // A signature cleared later is not signed again, whatever restarts.
      store.db.prepare("UPDATE transcript_heads SET signature = NULL, key_id = NULL").run();
      await establishHeadTrust(options(signer, store, false));
      await expect(store.readAll(sessionId)).rejects.toThrow(/not signed/);
    } finally {
      await store.close();
    }
  });

  it("signs nothing for a home whose key is new: it requires signatures from its first start", async () => {
    const signer = HeadSigner.generate();
    const { store, sessionId } = await olderDatabase(signer);
    try {
      expect((await establishHeadTrust(options(signer, store, true))).signed_at_start).toBe(0);
      await expect(store.readAll(sessionId)).rejects.toThrow(/not signed/);
    } finally {
      await store.close();
    }
  });

  it("refuses a state file it cannot read, saying what it is for", () => {
    const path = join(home, "head-signing.json");
    expect(readHeadSigningState(path)).toBeNull();
    for (const text of [
      "{",
      "[]",
      '{"every_head_signed_since":"never","signed_at_start":0}',
      '{"signed_at_start":1}',
    ]) {
      writeFileSync(path, text);
      expect(() => readHeadSigningState(path)).toThrow(HeadSigningStateError);
    }
    writeFileSync(path, '{"every_head_signed_since":"2026-01-01T00:00:00Z","signed_at_start":2}');
    expect(readHeadSigningState(path)?.signed_at_start).toBe(2);
    expect(readFileSync(path, "utf8")).toContain("2026");
  });
});
