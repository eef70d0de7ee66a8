/**
 * config.json's format: strict parsing with the problem named, the absent file as an empty
 * config, and atomic 0600 writes of valid configs only.
 */

import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  ProviderConfigError,
  parseProviderConfig,
  readProviderConfig,
  writeProviderConfig,
} from "../../src/home/provider-config.js";
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
      [{ providers: {}, approvalPolicy: [] }, /"approvalPolicy": must be an object/],
      [
        { providers: {}, approvalPolicy: { default: "maybe" } },
        /"approvalPolicy": "default" must be one of allow, ask, deny/,
      ],
      [
        { providers: {}, approvalPolicy: { rules: [{ tool: "", action: "allow" }] } },
        /"rules"\[0\]\."tool" must be/,
      ],
      [
        { providers: {}, approvalPolicy: { rules: [{ tool: "x", action: "allow", why: 1 }] } },
        /"rules"\[0\] has an unknown field "why"/,
      ],
      [
        { providers: {}, approvalPolicy: { rules: [{ tool: "x", pattern: 3, action: "allow" }] } },
        /"pattern" must be a string/,
      ],
      [{ providers: {}, approvalPolicy: { mode: "ask" } }, /"approvalPolicy": unknown field "mode"/],
      [
        { providers: { p: { ...profile, approvalPolicy: { default: "nope" } } } },
        /profile "p": "approvalPolicy": "default" must be one of/,
      ],
      [{ providers: {}, maxToolRounds: 0 }, /"maxToolRounds" must be a whole number from 1 to 10000/],
      [
        { providers: { p: { ...profile, maxToolRounds: 1.5 } } },
        /profile "p": "maxToolRounds" must be a whole number/,
      ],
    ];
    for (const [value, message] of cases) {
      expect(() => parse(value), String(message)).toThrow(message);
    }
    expect(() => parse([])).toThrow(/^provider config \/h\/config\.json is invalid: /);
  });

  it("takes approval policies and the tool-round cap at the top level and per profile", () => {
    const policy = {
      default: "ask",
      rules: [{ tool: "run_command", pattern: "git status*", action: "allow" }],
    };
    const config = parse({
      approvalPolicy: policy,
      maxToolRounds: 40,
      providers: { p: { ...profile, approvalPolicy: { default: "deny" }, maxToolRounds: 5 } },
    });
    expect(config.approvalPolicy).toEqual(policy);
    expect(config.maxToolRounds).toBe(40);
    expect(config.providers.p).toEqual({ ...profile, approvalPolicy: { default: "deny" }, maxToolRounds: 5 });
    const uncapped = parse({ maxToolRounds: null, providers: { p: { ...profile, maxToolRounds: null } } });
    expect(uncapped.maxToolRounds).toBeNull();
    expect(uncapped.providers.p?.maxToolRounds).toBeNull();
    expect(parse({ providers: {} })).not.toHaveProperty("maxToolRounds");
  });

  it("takes webFetch.allowAddresses only as address ranges", () => {
    expect(
      parse({ webFetch: { allowAddresses: ["127.0.0.1/32", "fd00::/8", "10.0.0.1"] } }).webFetch,
    ).toEqual({
      allowAddresses: ["127.0.0.1/32", "fd00::/8", "10.0.0.1"],
    });
    for (const [webFetch, message] of [
      [[], /"webFetch" must be an object/],
      [{ allow: [] }, /unknown key "allow"/],
      [{ allowAddresses: "127.0.0.1" }, /must be an array/],
      [{ allowAddresses: ["localhost"] }, /\[0\] must be an address range/],
      [{ allowAddresses: ["10.0.0.0/40"] }, /\[0\] must be an address range/],
    ] as const) {
      expect(() => parse({ webFetch })).toThrow(message);
    }
  });

  it("takes trustedHeadKeys only as Ed25519 public keys in PEM form", () => {
    const ed = generateKeyPairSync("ed25519").publicKey.export({ type: "spki", format: "pem" }).toString();
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 })
      .publicKey.export({ type: "spki", format: "pem" })
      .toString();
    expect(parse({ trustedHeadKeys: [ed] }).trustedHeadKeys).toEqual([ed]);
    const cases: Array<[unknown, RegExp]> = [
      ["not a list", /"trustedHeadKeys" must be an array/],
      [[7], /"trustedHeadKeys"\[0\] must be a public key/],
      [[ed, "hello"], /"trustedHeadKeys"\[1\] is not a head-signing key: expected an SPKI public key/],
      [[rsa], /must be Ed25519, not rsa/],
      [["-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n"], /not a readable public key/],
      [Array.from({ length: 257 }, () => ed), /at most 256/],
    ];
    for (const [trustedHeadKeys, message] of cases) {
      expect(() => parse({ trustedHeadKeys })).toThrow(message);
    }
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
