/**
 * The probes a supervisor asks (`GET /healthz`, `GET /readyz`): reached without a credential,
 * answering nothing but `{"status"}`, behind the same Host and Origin checks as every route; a
 * database another, newer daemon has migrated makes the daemon alive but not ready.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { schemaVersion } from "../../src/daemon/storage/database.js";
import { rawRequest } from "./support/daemon-harness.js";
import { eventually, useSharedFixture } from "./support/fixture.js";

describe("health and readiness probes", () => {
  const shared = useSharedFixture({ answer: "ok" });

  function probe(path: string, headers: Record<string, string> = {}) {
    return rawRequest(shared.app.port, { method: "GET", path, headers });
  }

  it("answers both probes without a credential, with no data but the status", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const answer = await probe(path);
      expect({ path, status: answer.status, text: answer.text }).toEqual({
        path,
        status: 200,
        text: '{"status":"ok"}',
      });
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    }
  });

  it("refuses a probe with a foreign Host or Origin like any route, and methods other than GET", async () => {
    expect((await probe("/healthz", { host: "attacker.example" })).status).toBe(403);
    expect((await probe("/readyz", { origin: "https://attacker.example" })).status).toBe(403);
    const post = await shared.app.api("/readyz", { method: "POST", body: {} });
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe("GET");
  });

  it("is alive but not ready while the database holds a schema newer than the daemon's, and ready again when it does not", async () => {
    const db = new Database(shared.app.dbPath);
    try {
      db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)").run(
        schemaVersion + 1,
        Date.now(),
      );
      expect((await probe("/healthz")).status).toBe(200);
      const notReady = await probe("/readyz");
      expect({ status: notReady.status, text: notReady.text }).toEqual({
        status: 503,
        text: '{"status":"unavailable"}',
      });
      const said = `"reason":"the database holds schema version ${schemaVersion + 1}, this daemon ${schemaVersion}","msg":"not ready (readyz)"`;
      await eventually("the reason in the daemon's log", async () =>
        shared.app.readLog().includes(said) ? true : undefined,
      );
      db.prepare("DELETE FROM schema_version WHERE version = ?").run(schemaVersion + 1);
      expect((await probe("/readyz")).status).toBe(200);
    } finally {
      db.close();
    }
  });
});
