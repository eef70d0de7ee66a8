/**
 * config.json's format: strict parsing with the problem named, the absent file as an empty
 * config, and atomic 0600 writes of valid configs only.
 */
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ProviderConfigError,
  parseProviderConfig,
  readProviderConfig,
  writeProviderConfig,
} from "../../src/api/provider-config.js";
import { removeTempRoots, tempRoot } from "../daemon/process/temp-home.js";

afterEach(removeTempRoots);

describe("parseProviderConfig", () => {
  const parse = (value: unknown) => parseProviderConfig(JSON.stringify(value), "/h/config.json");
  const profile = { protocol: "gemini", baseUrl: "https://g.example", model: "g" };

  it("validates strictly and names the problem", () => {
    const cases: Array<[unknown, RegExp]> = [
      [[], /expected a JSON object/],
      [{ providers: {}, extra: 1 }, /the top level has an unknown field "extra"/],
      [
        { providers: { p: { ...profile, temperature: 9 } } },
        /profile "p": "temperature" must be a number from 0 to 2/,
      ],
      [
        { providers: { p: { ...profile, baseUrl: "ftp://x" } } },
        /profile "p": "baseUrl" must be an http or https URL/,
      ],
      [{ providers: { p: { ...profile, model: "" } } }, /profile "p": "model" must be a non-empty string/],
      [
        { providers: { p: { ...profile, apiKey: "k", apiKeyEnv: "K" } } },
        /sets both "apiKey" and "apiKeyEnv"/,
      ],
      [
        { providers: { p: { ...profile, apiKeyEnv: "not a name" } } },
        /"apiKeyEnv" must be an environment variable name/,
      ],
      [{ providers: { p: { ...profile, headers: { "bad header": "x" } } } }, /"headers" entry "bad header"/],
      [{ providers: { "bad name!": profile } }, /profile name "bad name!"/],
    ];
    for (const [value, message] of cases) {
      expect(() => parse(value), String(message)).toThrow(message);
    }
    expect(() => parse([])).toThrow(/^provider config \/h\/config\.json is invalid: /);
  });

  it("keeps a profile named __proto__ as a plain entry", () => {
    const config = parseProviderConfig(
      `{"providers":{"__proto__":${JSON.stringify(profile)}},"active":"__proto__"}`,
      "/h/config.json",
    );
    expect(Object.keys(config.providers)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(config.providers, "__proto__")?.value.model).toBe("g");
    expect(({} as Record<string, unknown>).model).toBeUndefined();
  });
});

describe("readProviderConfig and writeProviderConfig", () => {
  const profile = { protocol: "chat_completions" as const, baseUrl: "http://127.0.0.1:1/v1", model: "m" };

  it("reads an absent file as an empty config and a written one back as it was", async () => {
    const home = join(tempRoot(), "home");
    mkdirSync(home, { mode: 0o700 });
    expect(readProviderConfig(home)).toEqual({ providers: {} });
    await writeProviderConfig(home, { active: "p", providers: { p: profile } });
    expect(statSync(join(home, "config.json")).mode & 0o777).toBe(0o600);
    expect(readProviderConfig(home)).toEqual({ active: "p", providers: { p: profile } });
  });

  it("refuses to write an invalid config and leaves the file as it was", async () => {
    const home = join(tempRoot(), "home");
    mkdirSync(home, { mode: 0o700 });
    await writeProviderConfig(home, { providers: { p: profile } });
    const before = readFileSync(join(home, "config.json"), "utf8");
    await expect(writeProviderConfig(home, { active: "q", providers: { p: profile } })).rejects.toThrow(
      ProviderConfigError,
    );
    expect(readFileSync(join(home, "config.json"), "utf8")).toBe(before);
  });

  it("reports a file it cannot read as a ProviderConfigError naming it", () => {
    const home = join(tempRoot(), "home");
    mkdirSync(join(home, "config.json"), { recursive: true });
    expect(() => readProviderConfig(home)).toThrow(ProviderConfigError);
    expect(() => readProviderConfig(home)).toThrow(/config\.json is invalid: it cannot be read/);
  });
});
