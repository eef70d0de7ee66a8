/** The effective request config: the profile's defaults under the session's own settings. */
import { describe, expect, it } from "vitest";
import {
  effectiveRequestConfig,
  profileRequestDefaults,
} from "../../src/providers/effective-request-config.js";
import { validateProviderProfile } from "../../src/providers/provider-profile.js";

const profile = validateProviderProfile({
  protocol: "anthropic",
  model: "claude-sonnet-4-5",
  maxOutputTokens: 4000,
  temperature: 0.4,
  topP: 0.9,
  topK: 20,
  effort: "medium",
});

describe("effectiveRequestConfig", () => {
  it("turns a profile's defaults into a request config", () => {
    expect(profileRequestDefaults(profile)).toEqual({
      max_tokens: 4000,
      temperature: 0.4,
      top_p: 0.9,
      top_k: 20,
      reasoning: { effort: "medium" },
    });
    expect(profileRequestDefaults({ protocol: "gemini", model: "g", thinkingBudget: 2048 })).toEqual({
      reasoning: { budget_tokens: 2048 },
    });
  });

  it("lets every field the session sets win, the reasoning control whole", () => {
    expect(
      effectiveRequestConfig(profile, {
        temperature: 1,
        reasoning: { budget_tokens: 9000 },
        stop_sequences: ["END"],
      }),
    ).toEqual({
      max_tokens: 4000,
      temperature: 1,
      top_p: 0.9,
      top_k: 20,
      reasoning: { budget_tokens: 9000 },
      stop_sequences: ["END"],
    });
  });

  it("is the session's config alone for a profile without defaults, and never shares its objects", () => {
    const session = { reasoning: { effort: "high" as const }, stop_sequences: ["x"] };
    const merged = effectiveRequestConfig({ protocol: "gemini", model: "g" }, session);
    expect(merged).toEqual(session);
    expect(merged.reasoning).not.toBe(session.reasoning);
    expect(merged.stop_sequences).not.toBe(session.stop_sequences);
  });
});
