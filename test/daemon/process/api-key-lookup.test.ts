/**
 * Where the daemon finds a profile's key: config.json's own `apiKey`, then the key stored by
 * `skein auth set`, then the environment; each place looked at is reported, never the key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { apiKeys } from "../../../src/daemon/process/api-key-lookup.js";
import { SecretsSource } from "../../../src/daemon/process/secrets-source.js";
import { writeSecretsFile } from "../../../src/home/secrets-file.js";
import type { ProviderProfile } from "../../../src/providers/provider-profile.js";
import { newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

const remote: ProviderProfile = {
  protocol: "anthropic",
  baseUrl: "https://api.example.com",
  model: "m",
  apiKeyEnv: "VENDOR_KEY",
};

describe("apiKeys", () => {
  it("takes config.json's key first, then the stored one, then the environment", async () => {
    const home = newHome();
    const secrets = new SecretsSource(home);
    const keys = apiKeys({ VENDOR_KEY: "sk-env" }, secrets);
    expect(
      keys.lookUp("p", { ...remote, apiKeyEnv: undefined, apiKey: "sk-config" } as ProviderProfile),
    ).toMatchObject({
      key: "sk-config",
      source: "config",
    });
    expect(keys.lookUp("p", remote)).toEqual({
      key: "sk-env",
      source: "env",
      looked: [`${secrets.path} (no key for profile "p")`, "$VENDOR_KEY in the daemon's environment"],
    });
    await writeSecretsFile(home, { apiKeys: { p: "sk-stored" } });
    expect(keys.lookUp("p", remote)).toEqual({
      key: "sk-stored",
      source: "secrets_file",
      looked: [`${secrets.path} (key of profile "p")`],
    });
    expect(keys.withKey("p", remote)).toEqual({
      protocol: "anthropic",
      baseUrl: remote.baseUrl,
      model: "m",
      apiKey: "sk-stored",
    });
  });

  it("refuses a profile that needs a key and has none, naming every place and the fix", () => {
    const home = newHome();
    const keys = apiKeys({}, new SecretsSource(home));
    expect(() => keys.withKey("p", remote)).toThrow(
      /no API key for profile "p": the daemon looked at .*secrets\.json \(no key for profile "p"\), then \$VENDOR_KEY in the daemon's environment \(not set\); store one with `skein auth set p`/,
    );
    // A local server may run without a key.
    const local: ProviderProfile = {
      protocol: "chat_completions",
      baseUrl: "http://127.0.0.1:1/v1",
      model: "m",
    };
    expect(keys.withKey("p", local)).toEqual(local);
  });

  it("reports a broken secrets file as the place looked at, without its content", async () => {
    const home = newHome();
    const { writeFileSync } = await import("node:fs");
    writeFileSync(`${home}/secrets.json`, '{"version":1,"apiKeys":{"p":"sk-half', { mode: 0o600 });
    const found = apiKeys({}, new SecretsSource(home)).lookUp("p", remote);
    expect(found.source).toBeNull();
    expect(found.looked[0]).toMatch(/secrets\.json \(secrets file .* is invalid: it is not valid JSON\)/);
    expect(found.looked.join(" ")).not.toContain("sk-half");
  });
});
