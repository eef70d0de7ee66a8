import { afterEach, describe, expect, it } from "vitest";
import { apiKeys } from "../../../src/daemon/process/api-key-lookup.js";
import { ProviderConfigSource } from "../../../src/daemon/process/provider-config.js";
import { SecretsSource } from "../../../src/daemon/process/secrets-source.js";
import { sessionProviders } from "../../../src/daemon/process/session-providers.js";
import { type ProviderConfig, writeProviderConfig } from "../../../src/home/provider-config.js";
import { writeSecretsFile } from "../../../src/home/secrets-file.js";
import { localProviderConfig as config, newHome, removeTempRoots } from "./temp-home.js";

afterEach(removeTempRoots);

describe("sessionProviders", () => {
  it("gives every turn of a profile and model the same client until config.json changes", async () => {
    const home = newHome();
    await writeProviderConfig(home, config);
    const providers = sessionProviders(new ProviderConfigSource(home), apiKeys({}, new SecretsSource(home)));
    const first = providers.bindClient(null, null, {});
    const again = providers.bindClient(null, null, { temperature: 0.5 });
    expect(again.client).toBe(first.client);
    // The session's own parameters still apply per turn.
    expect(again.requestConfig.temperature).toBe(0.5);
    expect(first.requestConfig.temperature).toBeUndefined();
    const otherModel = providers.bindClient(null, "qwen4", {});
    expect(otherModel.client).not.toBe(first.client);
    expect(otherModel.model).toBe("qwen4");
    await writeProviderConfig(home, {
      ...config,
      providers: { local: { ...config.providers.local!, baseUrl: "http://127.0.0.1:11435/v1" } },
    });
    const edited = providers.bindClient(null, null, {});
    expect(edited.client).not.toBe(first.client);
    expect(edited.model).toBe("qwen3");
  });

  it("makes a new client with the key stored by skein auth set once the secrets file changes", async () => {
    const home = newHome();
    const keyed: ProviderConfig = {
      active: "vendor",
      providers: { vendor: { protocol: "anthropic", baseUrl: "https://api.example.com", model: "m" } },
    };
    await writeProviderConfig(home, keyed);
    const providers = sessionProviders(new ProviderConfigSource(home), apiKeys({}, new SecretsSource(home)));
    expect(() => providers.bindClient(null, null, {})).toThrow(
      /no API key for profile "vendor": the daemon looked at .*secrets\.json \(no key for profile "vendor"\); store one with `skein auth set vendor`/,
    );
    await writeSecretsFile(home, { apiKeys: { vendor: "sk-stored" } });
    expect(providers.bindClient(null, null, {}).profileName).toBe("vendor");
  });
});
