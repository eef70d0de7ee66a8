/** Provider profiles: validation with clear messages, API key lookup, and endpoint URLs. */
import { describe, expect, it } from "vitest";
import {
  createLlmClient,
  endpointUrl,
  resolveApiKey,
  validateProviderProfile,
} from "../../src/providers/index.js";

describe("validateProviderProfile", () => {
  it("accepts a complete profile and keeps every field", () => {
    const profile = {
      protocol: "chat_completions",
      baseUrl: "http://localhost:11434/v1",
      model: "llama3.2",
      apiKeyEnv: "OLLAMA_KEY",
      headers: { "x-extra": "1" },
      maxTokensField: "max_tokens",
    };
    expect(validateProviderProfile(profile)).toEqual(profile);
  });

  it("names the field that is wrong", () => {
    const bad: [unknown, RegExp][] = [
      [null, /must be a JSON object/],
      [{ protocol: "openai", model: "m" }, /"protocol" must be one of/],
      [{ protocol: "gemini" }, /"model" is required/],
      [{ protocol: "gemini", model: "m", baseUrl: "ftp://x" }, /http or https/],
      [{ protocol: "gemini", model: "m", baseUrl: "not a url" }, /not a URL/],
      [{ protocol: "gemini", model: "m", headers: { a: 1 } }, /"headers"/],
      [{ protocol: "gemini", model: "m", temp: 1 }, /unknown field "temp"/],
      [{ protocol: "gemini", model: "m", temperature: 5 }, /"temperature" must be a number from 0 to 2/],
      [{ protocol: "gemini", model: "m", maxOutputTokens: 1.5 }, /"maxOutputTokens" must be an integer/],
      [{ protocol: "gemini", model: "m", effort: "huge" }, /"effort" must be one of/],
      [{ protocol: "gemini", model: "m", effort: "low", thinkingBudget: 1024 }, /not both/],
      [{ protocol: "gemini", model: "m", capabilities: { topK: "yes" } }, /"topK" must be true or false/],
      [{ protocol: "gemini", model: "m", capabilities: { sampling: true } }, /unknown field "sampling"/],
      [{ protocol: "gemini", model: "m", capabilities: { reasoning: "deep" } }, /reasoning must be one of/],
      [{ protocol: "chat_completions", model: "m", maxTokensField: "limit" }, /maxTokensField/],
    ];
    for (const [value, message] of bad) {
      expect(() => validateProviderProfile(value)).toThrow(message);
      try {
        validateProviderProfile(value);
      } catch (error) {
        expect(error).toMatchObject({ kind: "config" });
      }
    }
  });
});

describe("resolveApiKey", () => {
  it("prefers apiKey, then the named variable", () => {
    expect(resolveApiKey({ protocol: "anthropic", model: "m", apiKey: "direct" })).toBe("direct");
    expect(
      resolveApiKey({ protocol: "anthropic", model: "m", apiKeyEnv: "MY_KEY" }, { MY_KEY: "from-env" }),
    ).toBe("from-env");
  });

  it("fails clearly when a named variable is unset or a vendor profile has no key", () => {
    expect(() => resolveApiKey({ protocol: "anthropic", model: "m", apiKeyEnv: "MISSING" }, {})).toThrow(
      /MISSING/,
    );
    expect(() => resolveApiKey({ protocol: "gemini", model: "m" }, {})).toThrow(/no API key/);
    expect(() => createLlmClient({ protocol: "responses", model: "m" }, { env: {} })).toThrow(/no API key/);
  });

  it("lets chat_completions and loopback servers run without a key", () => {
    expect(
      resolveApiKey({ protocol: "chat_completions", model: "m", baseUrl: "http://gpu-box:8000/v1" }, {}),
    ).toBe(undefined);
    expect(resolveApiKey({ protocol: "anthropic", model: "m", baseUrl: "http://127.0.0.1:9999" }, {})).toBe(
      undefined,
    );
  });
});

describe("endpointUrl", () => {
  it("adds the default version unless the base already ends in one", () => {
    expect(endpointUrl("https://api.anthropic.com", "v1", "/messages")).toBe(
      "https://api.anthropic.com/v1/messages",
    );
    expect(endpointUrl("http://localhost:11434/v1/", "v1", "/chat/completions")).toBe(
      "http://localhost:11434/v1/chat/completions",
    );
    expect(endpointUrl("https://openrouter.ai/api/v1", "v1", "/responses")).toBe(
      "https://openrouter.ai/api/v1/responses",
    );
    expect(endpointUrl("https://generativelanguage.googleapis.com/v1beta", "v1beta", "/models/x")).toBe(
      "https://generativelanguage.googleapis.com/v1beta/models/x",
    );
  });
});
