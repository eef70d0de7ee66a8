/**
 * Named API tokens and roles against the real daemon over loopback: every route of the OpenAPI
 * document × every role is allowed or refused 403 role_forbidden, as the route declares (the
 * declarations themselves are the table in docs/http-api.md); a token bound to one session
 * reaches that session only; a revoked token is refused on its next request; who sent an input
 * or answered an approval, and from where, is recorded; bad bodies to /tokens are 400s that
 * store nothing; `skein token create` prints the token alone.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { type Role, roleAllows, roles } from "../../src/api/roles.js";
import { text, toolCalls } from "../support/fake-provider/reply.js";
import { type DaemonHarness, rawRequest, skeinBin } from "./support/daemon-harness.js";
import { eventually, useFakeProvider } from "./support/fixture.js";

const run = promisify(execFile);

interface Operation {
  "x-skein-role": Role | "public";
}
type Paths = Record<string, Record<string, Operation>>;

/** Create a named token through the API; its secret. */
async function createToken(app: DaemonHarness, body: Record<string, unknown>): Promise<string> {
  const response = await app.api("/tokens", { method: "POST", body });
  expect(response.status, response.text).toBe(201);
  return response.json<{ token: string }>().token;
}

function as(secret: string): { authorization: string } {
  return { authorization: `Bearer ${secret}` };
}

/** The roles table of docs/http-api.md: `| METHOD /path | role |` rows. */
function documentedRoles(): Map<string, string> {
  const doc = readFileSync(join(__dirname, "../../docs/http-api.md"), "utf8");
  const section = doc.slice(doc.indexOf("### Roles per route"));
  const table = new Map<string, string>();
  for (const match of section.matchAll(/^\| `(GET|PUT|POST|PATCH|DELETE) ([^`]+)` \| (\w+) \|/gm)) {
    table.set(`${match[1]} ${match[2]}`, match[3]!);
  }
  return table;
}

describe("named tokens and roles", () => {
  const fake = useFakeProvider();

  it("declares a role on every route, as docs/http-api.md lists them, and refuses every lesser role with 403 role_forbidden", async () => {
    const app = await fake.daemon({ env: { SKEIN_INSPECT: "1" } });
    const paths = (await app.api("/openapi.json")).json<{ paths: Paths }>().paths;
    const declared = new Map<string, string>();
    for (const [path, methods] of Object.entries(paths))
      for (const [method, operation] of Object.entries(methods))
        declared.set(`${method.toUpperCase()} ${path}`, operation["x-skein-role"]);
    expect(Object.fromEntries([...declared].sort())).toEqual(
      Object.fromEntries([...documentedRoles()].sort()),
    );

    const secrets = new Map<Role, string>();
    for (const role of roles) secrets.set(role, await createToken(app, { name: `matrix-${role}`, role }));
    let checked = 0;
    for (const [key, needed] of declared) {
      if (needed === "public") continue;
      const [method, template] = key.split(" ") as [string, string];
      // Ids that name nothing: an allowed request ends in a 4xx before it can change anything.
      const path = template.replace(/\{[^}]+\}/g, () => uuidv7());
      for (const role of roles) {
        const answer = await app.api(path, {
          method,
          // A body no route takes: refused (400) after the role check, before any handler runs.
          // (Its length is given: Node's client frames no DELETE body of its own.)
          headers: { ...as(secrets.get(role)!), ...(method === "GET" ? {} : { "content-length": "20" }) },
          ...(method === "GET" ? {} : { body: { not_a_field: true } }),
        });
        if (roleAllows(role, needed as Role)) {
          expect(answer.status, `${role} on ${key}: ${answer.text}`).not.toBe(403);
        } else {
          expect(answer.status, `${role} on ${key}: ${answer.text}`).toBe(403);
          expect(answer.json()).toMatchObject({ code: "role_forbidden" });
          expect(answer.json<{ detail: string }>().detail).toContain(`needs the ${needed} role`);
        }
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("confines a token bound to one session to that session and its entry of the listing", async () => {
    const app = await fake.daemon();
    const mine = await app.createSession();
    const other = await app.createSession();
    const secret = await createToken(app, { name: "one-session", role: "driver", session_id: mine });
    expect((await app.api(`/sessions/${mine}?tail=0`, { headers: as(secret) })).status).toBe(200);
    const refused = await app.api(`/sessions/${other}?tail=0`, { headers: as(secret) });
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ code: "session_forbidden" });
    const listing = (await app.api("/sessions", { headers: as(secret) })).json<{
      items: Array<{ id: string }>;
    }>();
    expect(listing.items.map((item) => item.id)).toEqual([mine]);
    // Its entry wherever it would fall in the paged listing (a newer session fills the first page of one).
    for (const [query, expected] of [
      ["?limit=1", [mine]],
      ["?scope=top&limit=1", [mine]],
      [`?parent_id=${other}`, []],
    ] as const) {
      const page = (await app.api(`/sessions${query}`, { headers: as(secret) })).json<{
        items: Array<{ id: string }>;
        next: string | null;
      }>();
      expect(
        page.items.map((item) => item.id),
        query,
      ).toEqual(expected);
      expect(page.next).toBeNull();
    }
    expect((await app.api("/server", { headers: as(secret) })).status).toBe(200);
    expect((await app.api("/schedules", { headers: as(secret) })).json()).toMatchObject({
      code: "session_forbidden",
    });
  });

  it("refuses a revoked token on its very next request, and its tokens are listed without secrets", async () => {
    const app = await fake.daemon();
    const secret = await createToken(app, { name: "phone", role: "viewer" });
    expect((await app.api("/sessions", { headers: as(secret) })).status).toBe(200);
    const listed = await app.api("/tokens");
    expect(listed.json()).toEqual({
      tokens: [{ name: "phone", role: "viewer", session_id: null, created_at: expect.any(String) }],
    });
    expect(listed.text).not.toContain(secret);
    expect((await app.api("/tokens/phone", { method: "DELETE" })).json()).toEqual({
      name: "phone",
      revoked: true,
    });
    const after = await app.api("/sessions", { headers: as(secret) });
    expect(after.status).toBe(401);
    expect(after.json()).toMatchObject({ code: "authentication_required" });
    expect((await app.api("/tokens/phone", { method: "DELETE" })).status).toBe(404);
  });

  it("records which token sent an input and answered an approval, and from which address", {
    timeout: 60_000,
  }, async () => {
    const app = await fake.daemon({ config: { approvalPolicy: undefined } });
    fake.provider.queue(
      toolCalls([{ name: "run_command", args: { command: "echo ran >> effects.txt" }, id: "call_who" }]),
      text("done"),
    );
    const sessionId = await app.createSession();
    const driver = await createToken(app, { name: "laptop", role: "driver" });
    const approver = await createToken(app, { name: "phone", role: "approver" });
    const inputId = uuidv7();
    const sent = await app.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      headers: as(driver),
      body: { kind: "message", text: "run it" },
    });
    expect(sent.status, sent.text).toBe(202);
    expect(sent.json()).toMatchObject({ sent_by: "laptop", sent_from: "127.0.0.1" });
    await eventually("the call waits", async () => {
      const snapshot = (await app.api(`/sessions/${sessionId}?tail=0`)).json<{
        pending_approvals: unknown[];
      }>();
      return snapshot.pending_approvals.length === 1 ? true : undefined;
    });
    const answered = await app.api(`/sessions/${sessionId}/approvals/call_who`, {
      method: "POST",
      headers: as(approver),
      body: { decision: "allow" },
    });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.json()).toMatchObject({ answered_by: "phone", answered_from: "127.0.0.1" });
    // The driver may not answer: that needs approver (which driver includes) — it may; a viewer may not.
    expect((await app.receipt(sessionId, inputId)).delivery).toBeDefined();
    const again = await app.api(`/sessions/${sessionId}/approvals/call_who`, {
      method: "POST",
      body: { decision: "allow" },
    });
    expect(again.json()).toMatchObject({ answered_by: "phone" });
    // The bootstrap token's own inputs say so.
    const own = await app.prompt(sessionId, "and again");
    expect(own).toMatchObject({ sent_by: "bootstrap", sent_from: "127.0.0.1" });
  });

  it("binds a browser login to the token whose link made it: its role, and its revocation", async () => {
    const app = await fake.daemon();
    const secret = await createToken(app, { name: "tablet", role: "viewer" });
    const link = await app.api("/web/login-codes", { method: "POST", headers: as(secret) });
    expect(link.status, link.text).toBe(201);
    const url = new URL(link.json<{ url: string }>().url);
    // As a browser: no Authorization header, the cookie instead.
    const browser = (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) =>
      rawRequest(app.port, {
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const login = await browser("POST", url.pathname + url.search, { accept: "text/html" });
    expect(login.status, login.text).toBe(303);
    const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
    expect((await browser("GET", "/sessions", { cookie })).status).toBe(200);
    const session = (await browser("GET", "/web/session", { cookie })).json<{ csrf_token: string }>();
    const refused = await browser(
      "POST",
      "/tokens",
      { cookie, "x-skein-csrf": session.csrf_token },
      {
        name: "escalate",
        role: "admin",
      },
    );
    expect(refused.status).toBe(403);
    expect(refused.json()).toMatchObject({ code: "role_forbidden" });
    await app.api("/tokens/tablet", { method: "DELETE" });
    expect((await browser("GET", "/sessions", { cookie })).status).toBe(401);
  });

  it("answers bad bodies to POST /tokens with a clear 400 (or 409 for a taken name) and stores nothing", async () => {
    const app = await fake.daemon();
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ name: "has space", role: "viewer" }, "name"],
      [{ name: "ok", role: "owner" }, "role"],
      [{ name: "ok" }, "role"],
      [{ name: "ok", role: "viewer", extra: 1 }, "extra"],
      [{ name: "bootstrap", role: "viewer" }, "bootstrap"],
      [{ name: "ok", role: "viewer", session_id: "not an id" }, "session_id"],
    ];
    for (const [body, mentions] of bad) {
      const answer = await app.api("/tokens", { method: "POST", body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json()).toMatchObject({ code: "invalid_request" });
      expect(answer.text).toContain(mentions);
    }
    expect((await app.api("/tokens")).json()).toEqual({ tokens: [] });
    await createToken(app, { name: "ok", role: "viewer" });
    const taken = await app.api("/tokens", { method: "POST", body: { name: "ok", role: "admin" } });
    expect(taken.status).toBe(409);
    expect(taken.json()).toMatchObject({ code: "token_exists" });
    expect((await app.api("/tokens")).json<{ tokens: Array<{ role: string }> }>().tokens).toEqual([
      expect.objectContaining({ name: "ok", role: "viewer" }),
    ]);
  });

  it("skein token create prints the token alone; list and revoke work through the CLI", async () => {
    const app = await fake.daemon();
    const env = { ...process.env, SKEIN_HOME: app.home, SKEIN_NO_AUTOSTART: "1" };
    const created = await run(
      process.execPath,
      [skeinBin, "token", "create", "tablet", "--role", "approver"],
      { env },
    );
    const secret = created.stdout.trim();
    expect(created.stdout).toBe(`${secret}\n`);
    expect(secret).toMatch(/^skn_[A-Za-z0-9_-]{43}$/);
    expect(
      (
        await app.api(`/sessions/${uuidv7()}/approvals/x`, {
          method: "POST",
          headers: as(secret),
          body: { decision: "allow" },
        })
      ).status,
    ).toBe(404);
    const listed = await run(process.execPath, [skeinBin, "token", "list"], { env });
    expect(listed.stdout).toMatch(/^tablet {2}approver {2}every session {2}created /);
    await run(process.execPath, [skeinBin, "token", "revoke", "tablet"], { env });
    expect((await app.api("/sessions", { headers: as(secret) })).status).toBe(401);
    const wrong = await run(process.execPath, [skeinBin, "token", "create", "x", "--role", "owner"], {
      env,
    }).catch((error: { code: number; stderr: string }) => error);
    expect(wrong).toMatchObject({ code: 2 });
    expect((wrong as { stderr: string }).stderr).toContain(
      "--role must be one of viewer, approver, driver, admin",
    );
  });
});
