/**
 * The port a daemon chose stays its port: a clean stop removes daemon.json, and the next start
 * still comes back on the same port (so bookmarks and browser logins, bound to the page's
 * origin, keep working).
 */
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFixture } from "./support/fixture.js";

describe("a daemon restarted after a clean stop", () => {
  it("comes back on the port it chose the first time", async () => {
    const { app, provider } = await startFixture();
    try {
      const first = app.port;
      expect(await app.shutdown()).toBe(0);
      expect(existsSync(join(app.home, "daemon.json"))).toBe(false);
      expect(statSync(join(app.home, "daemon.port")).mode & 0o777).toBe(0o600);
      await app.boot();
      expect(app.port).toBe(first);
      expect((await app.api("/server")).status).toBe(200);
    } finally {
      await app.close();
      await provider.close();
    }
  });
});
