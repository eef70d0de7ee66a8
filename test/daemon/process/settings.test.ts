import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopbackAddress, readSettings, SettingsError } from "../../../src/daemon/process/settings.js";
import { thrownBy } from "../../support/rejection.js";

function settingsError(env: NodeJS.ProcessEnv): SettingsError {
  return thrownBy(
    () => readSettings(env),
    (error) => error instanceof SettingsError,
    "readSettings accepted the environment",
  );
}

describe("readSettings", () => {
  it("applies the defaults to an empty environment", () => {
    const settings = readSettings({});
    expect(settings.home).toBe(join(homedir(), ".skein"));
    expect(settings.port).toBe(0);
    expect(settings.token).toMatch(/^[0-9a-f]{64}$/);
    expect(settings.tokenGenerated).toBe(true);
    expect(settings.dbPath).toBe(join(homedir(), ".skein", "skein.sqlite"));
    expect(settings.inspect).toBe(false);
    expect(settings.unloadSeconds).toBe(3600);
    expect(settings.host).toBe("127.0.0.1");
  });

  it("generates a new token at each start", () => {
    expect(readSettings({}).token).not.toBe(readSettings({}).token);
  });

  it("reads every variable", () => {
    const settings = readSettings({
      SKEIN_HOME: "/tmp/skein-home",
      SKEIN_PORT: "45678",
      SKEIN_TOKEN: "operator-chosen-authentication-token",
      SKEIN_DB: "/tmp/other.sqlite",
      SKEIN_INSPECT: "1",
      SKEIN_UNLOAD_SECONDS: "10",
      SKEIN_HOST: "::1",
    });
    expect(settings).toMatchObject({
      home: "/tmp/skein-home",
      port: 45678,
      token: "operator-chosen-authentication-token",
      tokenGenerated: false,
      dbPath: "/tmp/other.sqlite",
      inspect: true,
      unloadSeconds: 10,
      host: "::1",
    });
  });

  it("resolves a relative home and puts the default database in it", () => {
    const settings = readSettings({ SKEIN_HOME: "rel/home" });
    expect(settings.home).toBe(resolve(process.cwd(), "rel/home"));
    expect(settings.dbPath).toBe(join(settings.home, "skein.sqlite"));
    expect(readSettings({ SKEIN_HOME: "~/x" }).home).toBe(join(homedir(), "x"));
  });

  it("takes a postgres:// or postgresql:// SKEIN_DB as a PostgreSQL URL and anything else as a SQLite path", () => {
    for (const url of ["postgres://u@db:5432/skein", "postgresql://u:secret@db/skein?sslmode=require"]) {
      expect(readSettings({ SKEIN_HOME: "/tmp/h", SKEIN_DB: url }).database).toEqual({
        kind: "postgres",
        url,
      });
    }
    expect(readSettings({ SKEIN_HOME: "/tmp/h", SKEIN_DB: "pg.sqlite" }).database).toEqual({
      kind: "sqlite",
      path: resolve(process.cwd(), "pg.sqlite"),
    });
    // The URL may hold a password: the error does not echo it.
    expect(() => readSettings({ SKEIN_DB: "postgres://u:hunter2@[bad" })).toThrow(/^SKEIN_DB is invalid/);
  });

  it("treats an empty variable as unset", () => {
    expect(readSettings({ SKEIN_PORT: "", SKEIN_HOME: "" }).port).toBe(0);
  });

  it("refuses a port outside 0..65535 or not a number, naming the variable", () => {
    for (const port of ["65536", "-1", "80x", "1e3", " 80"]) {
      const error = settingsError({ SKEIN_PORT: port });
      expect(error.variable).toBe("SKEIN_PORT");
      expect(error.message).toMatch(/^SKEIN_PORT=.* is invalid: expected an integer from 0 to 65535/);
    }
  });

  it("refuses a short token without echoing it", () => {
    const error = settingsError({ SKEIN_TOKEN: "short-secret" });
    expect(error.message).toBe("SKEIN_TOKEN is invalid: it must be at least 16 characters long");
    expect(error.message).not.toContain("short-secret");
    expect(settingsError({ SKEIN_TOKEN: "has a space in the middle" }).variable).toBe("SKEIN_TOKEN");
  });

  it("clamps the unload delay to 1..604800 and refuses non-numbers", () => {
    expect(readSettings({ SKEIN_UNLOAD_SECONDS: "0" }).unloadSeconds).toBe(1);
    expect(readSettings({ SKEIN_UNLOAD_SECONDS: "-5" }).unloadSeconds).toBe(1);
    expect(readSettings({ SKEIN_UNLOAD_SECONDS: "99999999" }).unloadSeconds).toBe(604_800);
    expect(settingsError({ SKEIN_UNLOAD_SECONDS: "1h" }).variable).toBe("SKEIN_UNLOAD_SECONDS");
  });

  it("accepts only 1 or 0 for SKEIN_INSPECT", () => {
    expect(readSettings({ SKEIN_INSPECT: "0" }).inspect).toBe(false);
    expect(settingsError({ SKEIN_INSPECT: "yes" }).message).toBe(
      'SKEIN_INSPECT="yes" is invalid: expected 1 (enabled) or 0 (disabled)',
    );
  });

  it("refuses a non-loopback bind address without TLS, a trusted proxy or SKEIN_ALLOW_NON_LOOPBACK=1", () => {
    const error = settingsError({ SKEIN_HOST: "0.0.0.0" });
    expect(error.variable).toBe("SKEIN_HOST");
    expect(error.message).toMatch(/set SKEIN_TLS_CERT and SKEIN_TLS_KEY .* or SKEIN_TRUST_PROXY/);
    expect(settingsError({ SKEIN_LISTEN: "10.0.0.5:7700" }).variable).toBe("SKEIN_LISTEN");
    expect(readSettings({ SKEIN_HOST: "0.0.0.0", SKEIN_ALLOW_NON_LOOPBACK: "1" }).host).toBe("0.0.0.0");
    const tls = readSettings({
      SKEIN_LISTEN: "0.0.0.0:7700",
      SKEIN_TLS_CERT: "/c.pem",
      SKEIN_TLS_KEY: "/k.pem",
    });
    expect([tls.host, tls.port, tls.tls]).toEqual([
      "0.0.0.0",
      7700,
      { certPath: "/c.pem", keyPath: "/k.pem" },
    ]);
    const proxied = readSettings({ SKEIN_LISTEN: "[::]:7700", SKEIN_TRUST_PROXY: "10.0.0.2, ::1" });
    expect([proxied.host, proxied.trustProxy]).toEqual(["::", ["10.0.0.2", "::1"]]);
    expect(settingsError({ SKEIN_TLS_CERT: "/c.pem" }).variable).toBe("SKEIN_TLS_KEY");
    expect(settingsError({ SKEIN_TRUST_PROXY: "proxy.local" }).message).toMatch(/is not an IP address/);
    expect(settingsError({ SKEIN_LISTEN: "127.0.0.1:7700", SKEIN_PORT: "7701" }).message).toMatch(/not both/);
    expect(settingsError({ SKEIN_HOST: "localhost" }).message).toMatch(/expected an IP address/);
  });

  it("knows the loopback addresses", () => {
    expect(["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"].every(isLoopbackAddress)).toBe(true);
    expect(["10.0.0.1", "0.0.0.0", "::", "localhost", "128.0.0.1"].some(isLoopbackAddress)).toBe(false);
  });
});
