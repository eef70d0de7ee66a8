/**
 * `openSession` against a real daemon: a new session gets the command's first input in its
 * creation only when the home's daemon.json announces that creations take one (a daemon started
 * before that feature, still running after an upgrade, would refuse the field with a 400).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capabilities } from "../../src/api/protocol.js";
import { openSession } from "../../src/cli/open-session.js";
import { daemonAnnounces } from "../../src/client/daemon-capabilities.js";
import { DaemonClient } from "../../src/client/daemon-client.js";
import type { DaemonHarness } from "../e2e/support/daemon-harness.js";
import { startFixture } from "../e2e/support/fixture.js";
import { text } from "../support/fake-provider/reply.js";
import type { FakeProvider } from "../support/fake-provider/server.js";

describe("openSession and the daemon's announced capabilities", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  let announced: string;

  beforeAll(async () => {
    ({ provider, app } = await startFixture({}));
    provider.script = () => text("hello");
    announced = readFileSync(join(app.home, "daemon.json"), "utf8");
  });

  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  /** daemon.json as the running daemon wrote it, with `change` applied. */
  function rewriteDiscovery(change: (info: Record<string, unknown>) => void): void {
    const info = JSON.parse(announced) as Record<string, unknown>;
    change(info);
    writeFileSync(join(app.home, "daemon.json"), JSON.stringify(info), { mode: 0o600 });
  }

  const firstInput = () => ({ id: uuidv7(), kind: "message" as const, text: "hi" });

  it("announces every capability of this version in daemon.json, as GET /server does", async () => {
    const server = (await app.api("/server")).json<{ capabilities: Record<string, number> }>();
    expect(JSON.parse(announced).capabilities).toEqual(capabilities);
    expect(server.capabilities).toEqual(capabilities);
  });

  it("creates the session with its first input when the daemon announces creation_input", async () => {
    rewriteDiscovery(() => undefined);
    const client = DaemonClient.forHome(app.home);
    try {
      const input = firstInput();
      const opened = await openSession(client, app.workspace, {}, input);
      expect(opened.created).toBe(true);
      if (!opened.created) return;
      expect(opened.snapshot.input?.id).toBe(input.id);
    } finally {
      client.close();
    }
  });

  it("leaves the input out of the creation when daemon.json is an older daemon's (no capabilities)", async () => {
    rewriteDiscovery((info) => {
      delete info.capabilities;
    });
    expect(daemonAnnounces(app.home, "creation_input")).toBe(false);
    const client = DaemonClient.forHome(app.home);
    try {
      const opened = await openSession(client, app.workspace, {}, firstInput());
      expect(opened.created).toBe(true);
      if (!opened.created) return;
      // No receipt: the command sends the input itself, as it did before creations took one.
      expect(opened.snapshot.input).toBeUndefined();
      expect(opened.snapshot.input_order).toBe(0);
    } finally {
      client.close();
      rewriteDiscovery(() => undefined);
    }
  });

  it("takes the feature as announced when there is no daemon.json to ask or it names no home", () => {
    expect(daemonAnnounces(null, "creation_input")).toBe(true);
    expect(daemonAnnounces(join(app.home, "no-such-home"), "creation_input")).toBe(true);
    rewriteDiscovery((info) => {
      info.capabilities = { creation_input: 0, durable_inputs: "1" };
    });
    expect(daemonAnnounces(app.home, "creation_input")).toBe(false);
    expect(daemonAnnounces(app.home, "durable_inputs")).toBe(false);
    rewriteDiscovery(() => undefined);
  });
});
