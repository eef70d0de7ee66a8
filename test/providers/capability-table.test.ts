/**
 * The capability table, one test per (protocol, model family, parameter): the request body a
 * real adapter builds for a representative model of each family carries exactly the parameters
 * the family accepts, with effort mapped the family's way; and a profile's overrides win.
 */
import { describe, expect, it } from "vitest";
import { userMessage } from "../../src/model/items.js";
import type { RequestConfig } from "../../src/model/request-config.js";
import { capabilitiesFor } from "../../src/providers/capability-table.js";
import { protocolAdapter } from "../../src/providers/create-llm-client.js";
import type { ProviderProfile, ProviderProtocol } from "../../src/providers/provider-profile.js";

/** The body an adapter builds for `config`. */
function bodyFor(
  protocol: ProviderProtocol,
  model: string,
  config: RequestConfig,
  extra: Partial<ProviderProfile> = {},
) {
  const adapter = protocolAdapter({ protocol, model, baseUrl: "http://127.0.0.1:9", ...extra }, "k");
  return JSON.parse(
    adapter.buildHttpRequest({ items: [userMessage("hi")], tools: [], config }).body,
  ) as Record<string, unknown>;
}

/** Where each protocol puts a parameter (undefined: absent). */
function read(protocol: ProviderProtocol, body: Record<string, unknown>, parameter: string): unknown {
  if (protocol !== "gemini") return body[parameter];
  const generation = (body.generationConfig ?? {}) as Record<string, unknown>;
  const names: Record<string, string> = { temperature: "temperature", top_p: "topP", top_k: "topK" };
  return generation[names[parameter] ?? parameter];
}

interface Row {
  protocol: ProviderProtocol;
  family: string;
  model: string;
  /** Sampling parameters sent without thinking. */
  sampling: { temperature: boolean; top_p: boolean; top_k: boolean };
  /** Sampling parameters sent while thinking. */
  samplingWhileThinking: boolean;
  /** What effort high and minimal become (undefined: nothing is sent). */
  effort: { high: unknown; minimal: unknown } | undefined;
}

const all = { temperature: true, top_p: true, top_k: true };
const none = { temperature: false, top_p: false, top_k: false };

const rows: Row[] = [
  {
    protocol: "chat_completions",
    family: "openai-o-series",
    model: "o3-mini",
    sampling: none,
    samplingWhileThinking: false,
    effort: { high: "high", minimal: "low" },
  },
  {
    protocol: "chat_completions",
    family: "openai-gpt-5",
    model: "gpt-5-mini",
    sampling: none,
    samplingWhileThinking: false,
    effort: { high: "high", minimal: "minimal" },
  },
  {
    protocol: "chat_completions",
    family: "openai-gpt-5.1",
    model: "gpt-5.1",
    sampling: none,
    samplingWhileThinking: false,
    effort: { high: "high", minimal: "low" },
  },
  {
    protocol: "chat_completions",
    family: "openai-gpt-5.2+",
    model: "gpt-5.2",
    sampling: none,
    samplingWhileThinking: false,
    effort: { high: "high", minimal: "low" },
  },
  {
    protocol: "chat_completions",
    family: "openai-gpt-chat",
    model: "gpt-4.1",
    sampling: { temperature: true, top_p: true, top_k: false },
    samplingWhileThinking: true,
    effort: undefined,
  },
  {
    protocol: "chat_completions",
    family: "deepseek",
    model: "deepseek-reasoner",
    sampling: { temperature: true, top_p: true, top_k: false },
    samplingWhileThinking: true,
    effort: { high: "high", minimal: "minimal" },
  },
  {
    protocol: "chat_completions",
    family: "openai-compatible",
    model: "qwen3:8b",
    sampling: all,
    samplingWhileThinking: true,
    effort: { high: "high", minimal: "low" },
  },
  {
    protocol: "responses",
    family: "openai-gpt-5",
    model: "gpt-5",
    sampling: { temperature: false, top_p: false, top_k: false },
    samplingWhileThinking: false,
    effort: { high: { effort: "high", summary: "auto" }, minimal: { effort: "minimal", summary: "auto" } },
  },
  {
    protocol: "responses",
    family: "openai-gpt-chat",
    model: "gpt-4o",
    sampling: { temperature: true, top_p: true, top_k: false },
    samplingWhileThinking: true,
    effort: undefined,
  },
  {
    protocol: "anthropic",
    family: "claude-budget",
    model: "claude-sonnet-4-5",
    sampling: all,
    samplingWhileThinking: false,
    effort: {
      high: { type: "enabled", budget_tokens: 16384 },
      minimal: { type: "enabled", budget_tokens: 1024 },
    },
  },
  {
    protocol: "anthropic",
    family: "claude-4.6",
    model: "claude-opus-4-6",
    sampling: all,
    samplingWhileThinking: false,
    effort: { high: { type: "adaptive" }, minimal: { type: "adaptive" } },
  },
  {
    protocol: "anthropic",
    family: "claude-adaptive-only",
    model: "claude-opus-4-7",
    sampling: none,
    samplingWhileThinking: false,
    effort: { high: { type: "adaptive" }, minimal: { type: "adaptive" } },
  },
  {
    protocol: "anthropic",
    family: "claude-no-thinking",
    model: "claude-3-5-haiku-latest",
    sampling: all,
    samplingWhileThinking: true,
    effort: undefined,
  },
  {
    protocol: "gemini",
    family: "gemini-2.5",
    model: "gemini-2.5-pro",
    sampling: all,
    samplingWhileThinking: true,
    effort: {
      high: { thinkingBudget: 16384, includeThoughts: true },
      minimal: { thinkingBudget: 1024, includeThoughts: true },
    },
  },
  {
    protocol: "gemini",
    family: "gemini-3",
    model: "gemini-3-flash-preview",
    sampling: all,
    samplingWhileThinking: true,
    effort: {
      high: { thinkingLevel: "high", includeThoughts: true },
      minimal: { thinkingLevel: "minimal", includeThoughts: true },
    },
  },
  {
    protocol: "gemini",
    family: "gemini-3-pro",
    model: "gemini-3-pro-preview",
    sampling: all,
    samplingWhileThinking: true,
    effort: {
      high: { thinkingLevel: "high", includeThoughts: true },
      minimal: { thinkingLevel: "low", includeThoughts: true },
    },
  },
  {
    protocol: "gemini",
    family: "gemini-no-thinking",
    model: "gemini-2.0-flash",
    sampling: all,
    samplingWhileThinking: true,
    effort: undefined,
  },
];

/** Where each protocol puts its effort. */
function effortOf(protocol: ProviderProtocol, body: Record<string, unknown>): unknown {
  switch (protocol) {
    case "chat_completions":
      return body.reasoning_effort;
    case "responses":
      return body.reasoning;
    case "anthropic":
      return body.thinking;
    case "gemini":
      return ((body.generationConfig ?? {}) as Record<string, unknown>).thinkingConfig;
    default:
      throw new Error(`unknown protocol ${protocol}`);
  }
}

describe.each(rows)("$protocol / $family ($model)", (row) => {
  it("is the table row its model name selects", () => {
    expect(capabilitiesFor(row.protocol, row.model).family).toBe(row.family);
  });

  for (const parameter of ["temperature", "top_p", "top_k"] as const) {
    it(`${row.sampling[parameter] ? "sends" : "drops"} ${parameter} without thinking`, () => {
      const value = parameter === "top_k" ? 40 : 0.5;
      const body = bodyFor(row.protocol, row.model, { [parameter]: value });
      expect(read(row.protocol, body, parameter)).toBe(row.sampling[parameter] ? value : undefined);
    });

    it(`${row.sampling[parameter] && row.samplingWhileThinking ? "sends" : "drops"} ${parameter} while thinking`, () => {
      const value = parameter === "top_k" ? 40 : 0.5;
      const body = bodyFor(row.protocol, row.model, { [parameter]: value, reasoning: { effort: "high" } });
      const sent = row.sampling[parameter] && (row.samplingWhileThinking || row.effort === undefined);
      expect(read(row.protocol, body, parameter)).toBe(sent ? value : undefined);
    });
  }

  it(`maps effort ${row.effort === undefined ? "to nothing" : "high and minimal its own way"}`, () => {
    for (const level of ["high", "minimal"] as const) {
      const body = bodyFor(row.protocol, row.model, { reasoning: { effort: level } });
      expect(effortOf(row.protocol, body)).toEqual(row.effort?.[level]);
    }
  });
});

describe("parameters beside the table", () => {
  it("sends Claude's adaptive effort as output_config, with max for Opus 4.6 and xhigh for 4.7", () => {
    expect(bodyFor("anthropic", "claude-opus-4-6", { reasoning: { effort: "xhigh" } }).output_config).toEqual(
      { effort: "max" },
    );
    expect(
      bodyFor("anthropic", "claude-sonnet-4-6", { reasoning: { effort: "xhigh" } }).output_config,
    ).toEqual({ effort: "high" });
    expect(bodyFor("anthropic", "claude-opus-4-7", { reasoning: { effort: "xhigh" } }).output_config).toEqual(
      { effort: "xhigh" },
    );
    expect(
      bodyFor("anthropic", "claude-opus-4-7", { reasoning: { budget_tokens: 5000 } }).output_config,
    ).toEqual({ effort: "medium" });
  });

  it("keeps Claude's max_tokens above the budget and the budget at the API's minimum", () => {
    expect(bodyFor("anthropic", "claude-sonnet-4-5", { reasoning: { budget_tokens: 500 } })).toMatchObject({
      max_tokens: 8192 + 1024,
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(
      bodyFor("anthropic", "claude-sonnet-4-5", { max_tokens: 30_000, reasoning: { budget_tokens: 8000 } }),
    ).toMatchObject({
      max_tokens: 30_000,
    });
    expect(
      bodyFor("anthropic", "claude-sonnet-4-5", { max_tokens: 8000, reasoning: { budget_tokens: 8000 } }),
    ).toMatchObject({
      max_tokens: 16_000,
    });
  });

  it("reads a Gemini model given as `models/<name>` by its name", () => {
    expect(
      bodyFor("gemini", "models/gemini-3-pro-preview", { reasoning: { effort: "minimal" } }),
    ).toMatchObject({
      generationConfig: { thinkingConfig: { thinkingLevel: "low", includeThoughts: true } },
    });
  });

  it("asks for encrypted reasoning only for Responses models that reason, unless stored", () => {
    expect(bodyFor("responses", "gpt-5", {}).include).toEqual(["reasoning.encrypted_content"]);
    expect(bodyFor("responses", "o4-mini", {}).include).toEqual(["reasoning.encrypted_content"]);
    for (const model of ["gpt-4o", "gpt-4.1", "gpt-5-chat-latest", "some-local-model"]) {
      expect(bodyFor("responses", model, {}).include).toBeUndefined();
    }
    expect(bodyFor("responses", "gpt-5", {}, { store: true }).include).toBeUndefined();
  });

  it("lets a profile override any capability of its model's row", () => {
    expect(
      bodyFor(
        "chat_completions",
        "my-local-model",
        { reasoning: { effort: "high" }, top_k: 3 },
        {
          capabilities: { reasoning: "none", topK: false },
        },
      ),
    ).not.toHaveProperty("reasoning_effort");
    expect(
      bodyFor("responses", "my-azure-deployment", {}, { capabilities: { encryptedReasoning: true } }).include,
    ).toEqual(["reasoning.encrypted_content"]);
    expect(
      bodyFor(
        "gemini",
        "gemini-2.5-flash",
        { reasoning: { effort: "low" } },
        { capabilities: { reasoning: "gemini_level" } },
      ).generationConfig,
    ).toEqual({ thinkingConfig: { thinkingLevel: "low", includeThoughts: true } });
    expect(capabilitiesFor("anthropic", "claude-opus-4-7", { temperature: true }).temperature).toBe(true);
  });
});
