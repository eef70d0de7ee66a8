/**
 * Devices through the storage port on both backends: a pairing code pairs once (a second spend,
 * an unknown code and an expired one pair nothing), the device is then found by its cookie's
 * digest and not before, tokens and devices keep to their own kind, and a revoked device is found
 * no more; and two consumers racing with one code (two handles on one SQLite file, two nodes on
 * one PostgreSQL schema) pair exactly one browser.
 */
import { describe, expect, it } from "vitest";
import { openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import type { NewDevice } from "../../../src/daemon/storage/device-table.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { createPgSchema } from "../../support/pg-schema.js";
import { freshPgSessionStorage, storageBackends } from "./storage-backends.js";
import { tempDatabase } from "./temp-database.js";

const backends = storageBackends("skein_devices");

function device(name: string, pairingExpiresAt = 10_000): NewDevice {
  return {
    name,
    role: "approver",
    sessionId: null,
    createdAt: 1_000,
    unusableDigest: `unusable-${name}`,
    pairingDigest: `pairing-${name}`,
    pairingExpiresAt,
  };
}

describe.each(backends)("devices ($name)", (backend) => {
  it("pairs once with a code, then knows the device by its cookie until it is revoked", async () => {
    const devices = (await backend.open()).apiTokens.devices;
    expect(await devices.create(device("phone"))).toBe(true);
    expect(await devices.create(device("phone"))).toBe(false);
    expect(await devices.byCookieDigest("unusable-phone")).toBeNull();
    expect(await devices.pair("pairing-unknown", "cookie-x", 2_000)).toBeNull();
    const paired = await devices.pair("pairing-phone", "cookie-phone", 2_000);
    expect(paired).toEqual({
      name: "phone",
      role: "approver",
      sessionId: null,
      createdAt: 1_000,
      pairingExpiresAt: null,
      pairedAt: 2_000,
      lastSeenAt: 2_000,
    });
    expect(await devices.pair("pairing-phone", "cookie-thief", 2_001)).toBeNull();
    expect(await devices.byCookieDigest("cookie-thief")).toBeNull();
    expect(await devices.byCookieDigest("cookie-phone")).toEqual(paired);
    await devices.touch("phone", 70_000);
    expect((await devices.list()).map((row) => [row.name, row.lastSeenAt])).toEqual([["phone", 70_000]]);
    expect(await devices.remove("phone")).toBe(true);
    expect(await devices.byCookieDigest("cookie-phone")).toBeNull();
    expect(await devices.remove("phone")).toBe(false);
  });

  it("pairs nothing with an expired code, and keeps tokens and devices apart", async () => {
    const storage = await backend.open();
    const { devices } = storage.apiTokens;
    await devices.create(device("late", 5_000));
    expect(await devices.pair("pairing-late", "cookie-late", 5_000)).toBeNull();
    expect((await devices.list()).map((row) => [row.name, row.pairedAt])).toEqual([["late", null]]);
    await storage.apiTokens.create({
      name: "ci",
      digest: "token-ci",
      role: "driver",
      sessionId: null,
      createdAt: 1,
    });
    expect(await devices.create(device("ci"))).toBe(false);
    expect(await storage.apiTokens.create({ ...tokenRow("late") })).toBe(false);
    expect((await storage.apiTokens.list()).map((row) => row.name)).toEqual(["ci"]);
    expect((await devices.list()).map((row) => row.name)).toEqual(["late"]);
    // Neither kind's revocation reaches the other's rows; a token's digest is no device's cookie.
    expect(await storage.apiTokens.remove("late")).toBe(false);
    expect(await devices.remove("ci")).toBe(false);
    expect(await devices.byCookieDigest("token-ci")).toBeNull();
    expect(await storage.apiTokens.byName("late")).toBeNull();
  });
});

function tokenRow(name: string) {
  return { name, digest: `token-${name}`, role: "viewer" as const, sessionId: null, createdAt: 1 };
}

/** Race two consumers with one code, `rounds` times: one pairs, the other's cookie is nobody's. */
async function race(one: SessionStorage, two: SessionStorage, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round += 1) {
    const name = `racer-${round}`;
    await one.apiTokens.devices.create(device(name));
    const [a, b] = await Promise.all([
      one.apiTokens.devices.pair(`pairing-${name}`, `cookie-one-${round}`, 2_000),
      two.apiTokens.devices.pair(`pairing-${name}`, `cookie-two-${round}`, 2_000),
    ]);
    expect([a, b].filter((paired) => paired !== null)).toHaveLength(1);
    const winner = a !== null ? "one" : "two";
    expect(await two.apiTokens.devices.byCookieDigest(`cookie-${winner}-${round}`)).not.toBeNull();
    expect(
      await one.apiTokens.devices.byCookieDigest(`cookie-${winner === "one" ? "two" : "one"}-${round}`),
    ).toBeNull();
  }
}

describe("a pairing code spent by two consumers at once", () => {
  it("pairs exactly one of two handles on one SQLite file", async () => {
    const { db, path } = tempDatabase();
    const second = openDaemonDatabase(path);
    try {
      await race(new SqliteSessionStorage(db), new SqliteSessionStorage(second), 10);
    } finally {
      second.close();
    }
  });

  it("pairs exactly one of two nodes on one PostgreSQL schema", async () => {
    const schema = await createPgSchema("skein_devices_race");
    try {
      const one = await freshPgSessionStorage(schema);
      const two = new PgSessionStorage(await openPgDaemonDatabase(schema.url, { max: 4 }));
      try {
        await race(one, two, 20);
      } finally {
        await two.close();
      }
    } finally {
      await schema.drop();
    }
  });
});
