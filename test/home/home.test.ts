/**
 * The home's path and file names, resolved the same way by the daemon and its clients.
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSettings } from "../../src/daemon/process/settings.js";
import { homePaths, resolveUserPath, skeinHome } from "../../src/home/home.js";

describe("the Skein home", () => {
  it("names the files of a home", () => {
    expect(homePaths("/h")).toEqual({
      home: "/h",
      lock: "/h/daemon.lock",
      discovery: "/h/daemon.json",
      port: "/h/daemon.port",
      config: "/h/config.json",
      database: "/h/skein.sqlite",
      signingKey: "/h/head-signing-key.pem",
      headSigning: "/h/head-signing.json",
      log: "/h/daemon.log",
      logins: "/h/web-logins.json",
      secrets: "/h/secrets.json",
    });
  });

  it("is ~/.skein unless SKEIN_HOME names another (an empty value counts as unset)", () => {
    expect(skeinHome({}, "/w")).toBe(join(homedir(), ".skein"));
    expect(skeinHome({ SKEIN_HOME: "" }, "/w")).toBe(join(homedir(), ".skein"));
    expect(skeinHome({ SKEIN_HOME: "/data/skein/" }, "/w")).toBe("/data/skein");
    expect(skeinHome({ SKEIN_HOME: "rel/home" }, "/w")).toBe("/w/rel/home");
    expect(skeinHome({ SKEIN_HOME: "~/s" }, "/w")).toBe(join(homedir(), "s"));
    expect(skeinHome({ SKEIN_HOME: "~" }, "/w")).toBe(homedir());
  });

  it("expands a leading ~ only, as a shell would not inside quotes", () => {
    expect(resolveUserPath("~x/y", "/w")).toBe("/w/~x/y");
    expect(resolveUserPath("a/../b", "/w")).toBe("/w/b");
  });

  it("is the same home for the daemon's settings and for a client", () => {
    for (const value of ["~/skein-home", "/tmp/x/../skein-home", "relative/home"]) {
      expect(readSettings({ SKEIN_HOME: value }).home).toBe(skeinHome({ SKEIN_HOME: value }));
    }
    expect(readSettings({}).home).toBe(skeinHome({}));
  });
});
