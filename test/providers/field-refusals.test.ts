import { describe, expect, it } from "vitest";
import { FieldRefusals } from "../../src/providers/field-refusals.js";
import type { ProviderProfile } from "../../src/providers/provider-profile.js";

const profile: ProviderProfile = {
  protocol: "chat_completions",
  baseUrl: "http://127.0.0.1:9/v1",
  model: "m",
  apiKey: "one",
};

describe("FieldRefusals", () => {
  it("remembers a refused field for the profile's account, asked again with the same object", () => {
    const refusals = new FieldRefusals();
    expect([...refusals.refused(profile)]).toEqual([]);
    expect(refusals.remember(profile, ["stream_options"])).toEqual(["stream_options"]);
    expect([...refusals.refused(profile)]).toEqual(["stream_options"]);
    expect(refusals.remember(profile, ["stream_options", "reasoning"])).toEqual(["reasoning"]);
    expect([...refusals.refused(profile)]).toEqual(["stream_options", "reasoning"]);
  });

  it("shares refusals between equal profiles, and not with another key, model or server", () => {
    const refusals = new FieldRefusals();
    refusals.remember(profile, ["stream_options"]);
    expect([...refusals.refused({ ...profile })]).toEqual(["stream_options"]);
    for (const other of [
      { ...profile, apiKey: "two" },
      { ...profile, model: "n" },
      { ...profile, baseUrl: "http://127.0.0.1:10/v1" },
    ]) {
      expect([...refusals.refused(other)]).toEqual([]);
    }
  });
});
