import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { profilesDigest } from "../../../src/daemon/cluster/config-digest.js";
import type { ProviderConfig } from "../../../src/home/provider-config.js";

const profile = {
  protocol: "chat_completions" as const,
  baseUrl: "http://127.0.0.1:11434/v1",
  model: "qwen3:8b",
  apiKey: "secret-one",
  headers: { "x-org": "secret-header" },
  maxOutputTokens: 1000,
};

describe("the profiles digest", () => {
  it("is the same for the same profiles, whatever the order of keys and profiles", () => {
    const reordered = {
      maxOutputTokens: 1000,
      model: "qwen3:8b",
      headers: { "x-org": "other" },
      protocol: "chat_completions" as const,
      baseUrl: "http://127.0.0.1:11434/v1",
    };
    expect(profilesDigest({ active: "a", providers: { a: profile, b: { ...profile, model: "m2" } } })).toBe(
      profilesDigest({ active: "a", providers: { b: { ...profile, model: "m2" }, a: reordered } }),
    );
  });

  it("leaves secrets out: API keys and header values never change it", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (apiKey, header) => {
        const changed = { ...profile, apiKey, headers: { "x-org": header } };
        expect(profilesDigest({ providers: { a: changed } })).toBe(
          profilesDigest({ providers: { a: profile } }),
        );
      }),
    );
  });

  it("changes with anything else of a profile, a profile's name or the active one", () => {
    const base = profilesDigest({ active: "a", providers: { a: profile } });
    const variants: Array<Pick<ProviderConfig, "active" | "providers">> = [
      { active: "a", providers: { a: { ...profile, model: "other" } } },
      { active: "a", providers: { a: { ...profile, baseUrl: "http://127.0.0.1:1/v1" } } },
      { active: "a", providers: { a: { ...profile, maxOutputTokens: 999 } } },
      { active: "a", providers: { a: { ...profile, headers: { "x-other": "v" } } } },
      { active: "b", providers: { b: profile } },
      { active: "a", providers: { a: profile, b: profile } },
      { providers: { a: profile } },
    ];
    for (const variant of variants) expect(profilesDigest(variant), JSON.stringify(variant)).not.toBe(base);
  });
});
