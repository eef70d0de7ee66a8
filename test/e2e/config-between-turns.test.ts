/**
 * A change of config.json or secrets.json made between two turns is used by the next turn at
 * once, although the daemon stats those files at most once per event-loop iteration and HTTP
 * request (src/daemon/process/file-stamp.ts): the input that starts the turn is sent after the
 * change, without waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeSecretsFile } from "../../src/home/secrets-file.js";
import { text } from "../support/fake-provider/reply.js";
import { FakeProvider } from "../support/fake-provider/server.js";
import { DaemonHarness } from "./support/daemon-harness.js";

describe("config between turns", () => {
  let provider: FakeProvider;
  let app: DaemonHarness;
  const profile = (apiKey?: string) => ({
    fake: {
      protocol: "chat_completions" as const,
      baseUrl: provider.baseUrlWith("v1"),
      model: "m",
      ...(apiKey === undefined ? {} : { apiKey }),
    },
  });
  const lastKey = () => provider.requests.at(-1)?.headers.authorization;

  beforeAll(async () => {
    provider = await FakeProvider.start();
    provider.script = () => text("ok");
    app = await DaemonHarness.start({ providers: profile("first") });
  });
  afterAll(async () => {
    await app?.close();
    await provider?.close();
  });

  it("uses a key written into config.json or stored in secrets.json by the very next turn", async () => {
    const session = await app.createSession();
    await app.turn(session, "one");
    expect(lastKey()).toBe("Bearer first");
    for (const key of ["second", "third"]) {
      app.writeProviders(profile(key));
      await app.turn(session, key);
      expect(lastKey()).toBe(`Bearer ${key}`);
    }
    app.writeProviders(profile());
    await writeSecretsFile(app.home, { apiKeys: { fake: "stored" } });
    await app.turn(session, "stored");
    expect(lastKey()).toBe("Bearer stored");
    await writeSecretsFile(app.home, { apiKeys: { fake: "stored-again" } });
    await app.turn(session, "stored again");
    expect(lastKey()).toBe("Bearer stored-again");
  });
});
