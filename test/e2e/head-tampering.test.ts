/**
 * What a database writer without the signing key can do to a session's log, and what the daemon
 * makes of it, on both backends: the chain rewritten and re-hashed with the head's signature
 * cleared, faked, or made with a key the writer registered as a cluster node; the log rolled
 * back to an older, validly signed head. Each is read cold (the daemon stopped during the
 * tampering), live (the session loaded) and after an actor restart, and every way of reading
 * says corrupt: the verify report, `skein verify`, the snapshot, history pages and new input.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import type { LogEntry } from "../../src/log/entries.js";
import { buildChain } from "../../src/log/entry-hash.js";
import { HeadSigner } from "../../src/log/head-signer.js";
import { CliSandbox } from "../cli/support/cli-harness.js";
import { text } from "../support/fake-provider/reply.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { DaemonHarness, databaseKinds } from "./support/daemon-harness.js";
import { profileFor } from "./support/fixture.js";

interface Report {
  status: "verified" | "corrupt";
  head: { signature_status: string } | null;
  problem: { position: number; reason: string } | null;
}

interface HeadRow {
  position: number;
  hash: string;
  signature: string | null;
  key_id: string | null;
}

type Moment = "cold" | "live" | "after an actor restart";
const moments: readonly Moment[] = ["cold", "live", "after an actor restart"];

describe.each(databaseKinds)("a tampered head ($name)", ({ database }) => {
  const fake = withFakeProvider({ script: () => text("ok") });
  let app: DaemonHarness;
  let cli: CliSandbox;

  beforeAll(async () => {
    app = await DaemonHarness.start({
      providers: profileFor(fake()),
      database,
      env: { SKEIN_INSPECT: "1" },
    });
    cli = new CliSandbox({ root: app.root, home: app.home, env: { SKEIN_NO_AUTOSTART: "1" } });
  });

  afterAll(async () => {
    await app?.close();
  });

  async function headRow(sessionId: string): Promise<HeadRow> {
    const rows = await app.sql<HeadRow>(
      "SELECT position, hash, signature, key_id FROM transcript_heads WHERE session = ?",
      [sessionId],
    );
    return { ...rows[0]!, position: Number(rows[0]!.position) };
  }

  /** Rewrite every entry's text and re-hash the chain; the head moves to the new last hash with `signed`. */
  async function rewrite(
    sessionId: string,
    signed: (position: number, hash: string) => { signature: string | null; key_id: string | null },
  ): Promise<void> {
    const rows = await app.sql<{ entry: string }>(
      "SELECT entry FROM transcript WHERE session = ? ORDER BY position",
      [sessionId],
    );
    const entries = rows.map((row) => JSON.parse(row.entry.replaceAll("the real", "a forged")) as LogEntry);
    const chain = buildChain(null, entries);
    for (const [position, hashed] of chain.entries()) {
      await app.sql(
        "UPDATE transcript SET entry = ?, hash = ?, prev_hash = ? WHERE session = ? AND position = ?",
        [canonicalJson(hashed.entry), hashed.hash, hashed.prev_hash, sessionId, position],
      );
    }
    const last = chain.length - 1;
    const signature = signed(last, chain[last]!.hash);
    await app.sql("UPDATE transcript_heads SET hash = ?, signature = ?, key_id = ? WHERE session = ?", [
      chain[last]!.hash,
      signature.signature,
      signature.key_id,
      sessionId,
    ]);
  }

  /** A session with two turns, loaded, with the head of its first turn kept aside. */
  async function twoTurns(): Promise<{ sessionId: string; first: HeadRow }> {
    const sessionId = await app.createSession();
    await app.turn(sessionId, "the real question");
    const first = await headRow(sessionId);
    await app.turn(sessionId, "the real follow-up");
    expect((await app.api(`/sessions/${sessionId}`)).status).toBe(200);
    return { sessionId, first };
  }

  /** Tamper at `moment`: with the daemon stopped, with the session loaded, or before its actor restarts. */
  async function tamperAt(moment: Moment, sessionId: string, tamper: () => Promise<void>): Promise<void> {
    switch (moment) {
      case "cold":
        await app.shutdown();
        await tamper();
        await app.boot();
        return;
      case "live":
        await tamper();
        return;
      case "after an actor restart": {
        await tamper();
        const restarted = await app.api(`/debug/sessions/${sessionId}/restart`, { method: "POST" });
        expect([200, 204, 500]).toContain(restarted.status);
        return;
      }
      default: {
        const unknown: never = moment;
        throw new Error(`unknown moment ${String(unknown)}`);
      }
    }
  }

  /** Every reader says the session is corrupt, for `reason`; `skein verify` exits non-zero. */
  async function expectCorrupt(sessionId: string, reason: RegExp): Promise<Report> {
    const report = (await app.api(`/sessions/${sessionId}/verify`)).json<Report>();
    expect(report.status).toBe("corrupt");
    expect(report.problem!.reason).toMatch(reason);
    const input = await app.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "more" },
    });
    expect(input.status).toBe(500);
    expect(input.json()).toMatchObject({ code: "log_corrupt" });
    const snapshot = await app.api(`/sessions/${sessionId}`);
    expect(snapshot.status).toBe(500);
    expect(snapshot.json()).toMatchObject({ code: "log_corrupt" });
    const history = await app.api(`/sessions/${sessionId}/history?limit=1`);
    expect(history.status).toBe(500);
    const verified = await cli.run(["verify", sessionId]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(`CORRUPT  ${sessionId}`);
    return report;
  }

  const forgeries: ReadonlyArray<{
    name: string;
    signed: (
      sessionId: string,
      position: number,
      hash: string,
    ) => { signature: string | null; key_id: string | null };
    reason: RegExp;
  }> = [
    {
      name: "signature and key id cleared",
      signed: () => ({ signature: null, key_id: null }),
      reason: /not signed/,
    },
    {
      name: "key id cleared, signature kept",
      signed: () => ({ signature: "AAAA", key_id: null }),
      reason: /not signed/,
    },
    {
      name: "a made-up key id",
      signed: () => ({ signature: Buffer.alloc(64, 7).toString("base64"), key_id: "0123456789abcdef" }),
      reason: /not trusted/,
    },
    {
      name: "signed by the forger's own key",
      signed: (sessionId, position, hash) => forger.sign(sessionId, position, hash),
      reason: /not trusted/,
    },
  ];
  const forger = HeadSigner.generate();

  for (const forgery of forgeries) {
    for (const moment of moments) {
      it(`refuses a re-hashed log with ${forgery.name}, tampered ${moment}`, async () => {
        const { sessionId } = await twoTurns();
        await tamperAt(moment, sessionId, () =>
          rewrite(sessionId, (position, hash) => forgery.signed(sessionId, position, hash)),
        );
        await expectCorrupt(sessionId, forgery.reason);
      });
    }
  }

  it.runIf(database === "postgres")(
    "does not trust a key a database writer registered as a cluster node, and says so in GET /cluster",
    async () => {
      const { sessionId } = await twoTurns();
      const nodeId = randomUUID();
      await app.sql(
        "INSERT INTO nodes (id, url, pid, started_at, heartbeat_at, stopped_at, public_key) VALUES (?, ?, ?, ?, ?, NULL, ?)",
        [nodeId, "http://127.0.0.1:1", 1, Date.now(), Date.now(), forger.publicKeyPem()],
      );
      await tamperAt("after an actor restart", sessionId, () =>
        rewrite(sessionId, (position, hash) => forger.sign(sessionId, position, hash)),
      );
      await expectCorrupt(sessionId, /not trusted/);
      const cluster = (await app.api("/cluster")).json<{
        nodes: Array<{ id: string; key_id: string | null; key_trusted: boolean; self: boolean }>;
      }>();
      expect(cluster.nodes.find((node) => node.id === nodeId)).toMatchObject({
        key_id: forger.keyId,
        key_trusted: false,
      });
      expect(cluster.nodes.find((node) => node.self)?.key_trusted).toBe(true);
    },
  );

  for (const moment of moments) {
    it(`catches a log rolled back to an older signed head when an input receipt names a later position, tampered ${moment}`, async () => {
      const { sessionId, first } = await twoTurns();
      await tamperAt(moment, sessionId, async () => {
        await app.sql("DELETE FROM transcript WHERE session = ? AND position > ?", [
          sessionId,
          first.position,
        ]);
        await app.sql(
          "UPDATE transcript_heads SET position = ?, hash = ?, signature = ?, key_id = ? WHERE session = ?",
          [first.position, first.hash, first.signature, first.key_id, sessionId],
        );
      });
      const report = await expectCorrupt(sessionId, /delivered at position|rolled back/);
      expect(report.problem!.position).toBe(first.position + 1);
    });
  }

  it("catches, while the session is loaded, a rollback no receipt names (only the last answer removed)", async () => {
    const sessionId = await app.createSession();
    await app.turn(sessionId, "the real question");
    const before = await headRow(sessionId);
    // The turn's last commit: the answer, its end and its outcome. Roll back to before it by
    // signing nothing: put back an older head of this very log, signed by the daemon.
    const rows = await app.sql<{ position: number; hash: string }>(
      "SELECT position, hash FROM transcript WHERE session = ? AND kind = 'user_input'",
      [sessionId],
    );
    const userPosition = Number(rows[0]!.position);
    expect(userPosition).toBeLessThan(before.position);
    await app.turn(sessionId, "the real follow-up");
    await app.sql("DELETE FROM transcript WHERE session = ? AND position > ?", [sessionId, before.position]);
    await app.sql(
      "UPDATE transcript_heads SET position = ?, hash = ?, signature = ?, key_id = ? WHERE session = ?",
      [before.position, before.hash, before.signature, before.key_id, sessionId],
    );
    // The follow-up's input row names a position past the head too; remove that evidence, so
    // only the loaded actor's memory of what it committed is left to tell.
    await app.sql("UPDATE inputs SET transcript_position = NULL WHERE session = ?", [sessionId]);
    const report = (await app.api(`/sessions/${sessionId}/verify`)).json<Report>();
    expect(report.status).toBe("corrupt");
    expect(report.problem!.reason).toMatch(/rolled back/);
    expect((await app.api(`/sessions/${sessionId}/history?limit=1`)).status).toBe(500);
  });

  it("accepts a head signed by a key config.json lists in trustedHeadKeys, and stops the moment it is removed", async () => {
    const { sessionId } = await twoTurns();
    const other = HeadSigner.generate();
    await tamperAt("after an actor restart", sessionId, async () => {
      const head = await headRow(sessionId);
      const signed = other.sign(sessionId, head.position, head.hash);
      await app.sql("UPDATE transcript_heads SET signature = ?, key_id = ? WHERE session = ?", [
        signed.signature,
        signed.key_id,
        sessionId,
      ]);
    });
    expect((await app.api(`/sessions/${sessionId}/verify`)).json<Report>().status).toBe("corrupt");
    const configPath = join(app.home, "config.json");
    const config = JSON.parse(readFileSync(configPath, "utf8")) as Record<string, unknown>;
    writeFileSync(configPath, JSON.stringify({ ...config, trustedHeadKeys: [other.publicKeyPem()] }));
    const trusted = (await app.api(`/sessions/${sessionId}/verify`)).json<Report>();
    expect(trusted.status).toBe("verified");
    expect(trusted.head!.signature_status).toBe("valid");
    writeFileSync(configPath, JSON.stringify(config));
    expect((await app.api(`/sessions/${sessionId}/verify`)).json<Report>().problem!.reason).toMatch(
      /not trusted/,
    );
  });

  it("signs, once, the unsigned heads of an older home, and treats a head unsigned after that as corrupt", async () => {
    const sessionId = await app.createSession();
    await app.turn(sessionId, "the real question");
    await app.shutdown();
    // A home from before every head had to be signed: its state file absent, a head unsigned.
    rmSync(join(app.home, "head-signing.json"));
    await app.sql("UPDATE transcript_heads SET signature = NULL, key_id = NULL WHERE session = ?", [
      sessionId,
    ]);
    await app.boot();
    const report = (await app.api(`/sessions/${sessionId}/verify`)).json<Report>();
    expect(report.status).toBe("verified");
    expect(report.head!.signature_status).toBe("valid");
    expect(app.readLog()).toMatch(/signed the unsigned heads/);

    await app.shutdown();
    await app.sql("UPDATE transcript_heads SET signature = NULL, key_id = NULL WHERE session = ?", [
      sessionId,
    ]);
    await app.boot();
    await expectCorrupt(sessionId, /not signed/);
  });
});
