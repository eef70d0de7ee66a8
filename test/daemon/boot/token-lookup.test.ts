/**
 * The ingress hook's lookup of paired devices, on a real SQLite database and a clock the test
 * moves: a device's cookie is known from its pairing until 90 days after it, its latest request
 * is written at most once a minute (after the lookup, never in its way), a token's secret is no
 * device's cookie nor the reverse, and a revoked device is unknown at the next lookup.
 */
import { describe, expect, it } from "vitest";
import { deviceLoginLifetimeMs } from "../../../src/api/devices.js";
import { tokenLookupOf } from "../../../src/daemon/boot/token-lookup.js";
import { secretDigest } from "../../../src/daemon/http/token-secret.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { eventually } from "../../support/eventually.js";
import { tempDatabase } from "../storage/temp-database.js";

describe("the device lookup", () => {
  it("knows a paired device's cookie for 90 days, notes its last request once a minute, and forgets it when revoked", async () => {
    const tokens = new SqliteSessionStorage(tempDatabase().db).apiTokens;
    let now = 1_000_000;
    const lookup = tokenLookupOf(tokens, () => now);
    await tokens.devices.create({
      name: "phone",
      role: "approver",
      sessionId: null,
      createdAt: now,
      unusableDigest: secretDigest("never told"),
      pairingDigest: secretDigest("the code"),
      pairingExpiresAt: now + 600_000,
    });
    expect(await lookup.byDeviceCookie("the cookie")).toBeNull();
    await tokens.devices.pair(secretDigest("the code"), secretDigest("the cookie"), now);
    const pairedAt = now;
    const principal = { name: "phone", role: "approver", sessionId: null };
    expect(await lookup.byDeviceCookie("the cookie")).toEqual({
      principal,
      expiresAt: pairedAt + deviceLoginLifetimeMs,
    });
    expect(await lookup.bySecret("the cookie")).toBeNull();
    expect(await lookup.byName("phone")).toBeNull();

    const lastSeen = async () => (await tokens.devices.list())[0]!.lastSeenAt;
    now += 59_000;
    await lookup.byDeviceCookie("the cookie");
    expect(await lastSeen()).toBe(pairedAt);
    now += 1_000;
    await lookup.byDeviceCookie("the cookie");
    await eventually("the last request is noted", async () =>
      (await lastSeen()) === now ? true : undefined,
    );

    now = pairedAt + deviceLoginLifetimeMs - 1;
    expect(await lookup.byDeviceCookie("the cookie")).not.toBeNull();
    now += 1;
    expect(await lookup.byDeviceCookie("the cookie")).toBeNull();
    now = pairedAt;
    await tokens.devices.remove("phone");
    expect(await lookup.byDeviceCookie("the cookie")).toBeNull();
  });
});
