/**
 * The identity checks of every request (request-authority.ts) over a real SQLite token store:
 * the bootstrap token is decided at once, without a promise, however often it comes; a named
 * token is looked up on every request, so one revoked between two requests is refused at the
 * second, whatever was digested or remembered for the first.
 */
import { describe, expect, it } from "vitest";
import { tokenLookupOf } from "../../../src/daemon/boot/token-lookup.js";
import type { Credential } from "../../../src/daemon/http/credential.js";
import { ProblemError } from "../../../src/daemon/http/problem.js";
import { RequestAuthority } from "../../../src/daemon/http/request-authority.js";
import { BearerCheck } from "../../../src/daemon/http/request-guard.js";
import { newTokenSecret, secretDigest } from "../../../src/daemon/http/token-secret.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { tempDatabase } from "../storage/temp-database.js";

const bootstrap = "bootstrap-token-0123456789abcdef";
const port = 4100;

function headOf(authorization: string): { rawHeaders: string[]; method: string; whole: boolean } {
  return {
    rawHeaders: ["Host", `127.0.0.1:${port}`, "Authorization", authorization],
    method: "PUT",
    whole: true,
  };
}

function authorityOver(tokens: SqliteSessionStorage["apiTokens"]): RequestAuthority {
  return new RequestAuthority({
    bearer: new BearerCheck(bootstrap),
    tokens: tokenLookupOf(tokens),
    port: () => port,
  });
}

async function refusalOf(check: () => Credential | Promise<Credential>): Promise<string | null> {
  try {
    await check();
    return null;
  } catch (error) {
    return error instanceof ProblemError ? error.code : String(error);
  }
}

describe("the request authority", () => {
  it("decides the bootstrap token at once, request after request, and refuses a wrong one", async () => {
    const authority = authorityOver(new SqliteSessionStorage(tempDatabase().db).apiTokens);
    for (let i = 0; i < 3; i++) {
      const credential = authority.checkRequest(headOf(`Bearer ${bootstrap}`));
      expect(credential).not.toBeInstanceOf(Promise);
      expect(credential).toMatchObject({ kind: "token", principal: { name: "bootstrap", role: "admin" } });
    }
    expect(await refusalOf(() => authority.checkRequest(headOf(`Bearer ${bootstrap}x`)))).toBe(
      "authentication_required",
    );
    expect(await refusalOf(() => authority.checkRequest(headOf(`Bearer ${bootstrap.slice(0, -1)}`)))).toBe(
      "authentication_required",
    );
  });

  it("looks a named token up on every request: revoked between two requests, the second is refused", async () => {
    const tokens = new SqliteSessionStorage(tempDatabase().db).apiTokens;
    const authority = authorityOver(tokens);
    const secret = newTokenSecret();
    await tokens.create({
      name: "ci",
      digest: secretDigest(secret),
      role: "driver",
      sessionId: null,
      createdAt: 1,
    });
    const first = authority.checkRequest(headOf(`Bearer ${secret}`));
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ kind: "token", principal: { name: "ci", role: "driver" } });
    expect(await authority.checkRequest(headOf(`Bearer ${secret}`))).toMatchObject({ kind: "token" });
    await tokens.remove("ci");
    expect(await refusalOf(() => authority.checkRequest(headOf(`Bearer ${secret}`)))).toBe(
      "authentication_required",
    );
  });

  it("still checks the Host of a request whose token passed at once", async () => {
    const authority = authorityOver(new SqliteSessionStorage(tempDatabase().db).apiTokens);
    const head = headOf(`Bearer ${bootstrap}`);
    head.rawHeaders[1] = "attacker.example:4100";
    expect(await refusalOf(() => authority.checkRequest(head))).toBe("host_forbidden");
  });
});
