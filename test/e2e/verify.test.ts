/**
 * Verification of a session's log through the daemon and `skein verify`: every recorded head is
 * signed with the home's key; a log cut back at its tail, or rewritten and re-hashed with its
 * recorded head moved along, is reported corrupt (and the session takes no more input).
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import type { LogEntry } from "../../src/log/entries.js";
import { buildChain } from "../../src/log/entry-hash.js";
import { useCliDaemon } from "../cli/support/cli-daemon.js";
import { text } from "../support/fake-provider/reply.js";

interface Report {
  session_id: string;
  status: "verified" | "corrupt";
  entries: number | null;
  head: { position: number; hash: string; key_id: string | null; signature_status: string } | null;
  problem: { position: number; reason: string } | null;
  signing_key: { key_id: string; public_key: string };
}

describe("verifying session logs", () => {
  const shared = useCliDaemon(() => text("ok"));

  async function verify(sessionId: string): Promise<Report> {
    const response = await shared.daemon.api(`/sessions/${sessionId}/verify`);
    expect(response.status).toBe(200);
    return response.json<Report>();
  }

  function behind(work: (db: Database.Database) => void): void {
    const db = new Database(shared.daemon.dbPath);
    try {
      work(db);
    } finally {
      db.close();
    }
  }

  it("signs every head with the home's key, kept 0600, and reports a valid signature", async () => {
    const sessionId = await shared.daemon.createSession();
    await shared.daemon.turn(sessionId, "one");
    const report = await verify(sessionId);
    expect(report.status).toBe("verified");
    expect(report.problem).toBeNull();
    expect(report.head).toMatchObject({ signature_status: "valid", key_id: report.signing_key.key_id });
    expect(report.entries).toBe(report.head!.position + 1);
    expect(report.signing_key.public_key).toMatch(/BEGIN PUBLIC KEY/);
    expect(statSync(join(shared.daemon.home, "head-signing-key.pem")).mode & 0o777).toBe(0o600);

    const result = await shared.cli.run(["verify", sessionId]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`ok  ${sessionId}`);
    expect(result.stdout).toContain(`signed by ${report.signing_key.key_id}`);
  });

  it("reports a log cut back at its tail as corrupt, and the session then refuses input", async () => {
    const sessionId = await shared.daemon.createSession();
    await shared.daemon.turn(sessionId, "one");
    await shared.daemon.turn(sessionId, "two");
    const before = await verify(sessionId);
    const cut = before.head!.position - 2;
    behind((db) =>
      db.prepare("DELETE FROM transcript WHERE session = ? AND position > ?").run(sessionId, cut),
    );

    const report = await verify(sessionId);
    expect(report.status).toBe("corrupt");
    expect(report.problem).toMatchObject({ position: cut + 1 });
    expect(report.problem!.reason).toMatch(/removed/);

    const put = await shared.daemon.api(`/sessions/${sessionId}/inputs/${uuidv7()}`, {
      method: "PUT",
      body: { kind: "message", text: "three" },
    });
    expect(put.status).toBe(500);
    expect(put.json()).toMatchObject({ code: "log_corrupt" });

    const result = await shared.cli.run(["verify", sessionId]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain(`CORRUPT  ${sessionId}  at position ${cut + 1}`);
  });

  it("detects a log rewritten and re-hashed with its recorded head moved along, by the signature", async () => {
    const sessionId = await shared.daemon.createSession();
    await shared.daemon.turn(sessionId, "the real question");
    const before = await verify(sessionId);
    // A forger with write access to the database but not to the key rewrites the whole log.
    behind((db) => {
      const rows = db
        .prepare<[string], { entry: string }>(
          "SELECT entry FROM transcript WHERE session = ? ORDER BY position",
        )
        .all(sessionId);
      const entries = rows.map(
        (row) => JSON.parse(row.entry.replace("the real question", "a forged question")) as LogEntry,
      );
      const chain = buildChain(null, entries);
      const update = db.prepare(
        "UPDATE transcript SET entry = ?, hash = ?, prev_hash = ? WHERE session = ? AND position = ?",
      );
      chain.forEach((hashed, position) => {
        update.run(canonicalJson(hashed.entry), hashed.hash, hashed.prev_hash, sessionId, position);
      });
      db.prepare("UPDATE transcript_heads SET hash = ? WHERE session = ?").run(chain.at(-1)!.hash, sessionId);
    });
    const report = await verify(sessionId);
    expect(report.status).toBe("corrupt");
    expect(report.problem).toMatchObject({ position: before.head!.position });
    expect(report.problem!.reason).toMatch(/signature/);
    expect(report.head!.signature_status).toBe("invalid");
  });

  it("answers 404 for an unknown session", async () => {
    const response = await shared.daemon.api(`/sessions/${uuidv7()}/verify`);
    expect(response.status).toBe(404);
  });
});
