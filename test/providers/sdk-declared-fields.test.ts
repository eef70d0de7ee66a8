/**
 * Every field of every body the builders emit is one the vendor's official SDK declares for
 * that request, or a vendor extension this file allows for that target on purpose. Type-level
 * assignability (sdk-request-types.test.ts) does not catch an extra field — a body type with
 * more fields is still assignable — and an undeclared field is exactly what a strict server
 * refuses (Mistral's 422 `extra_forbidden`). So the bodies themselves are checked: built from
 * generated histories and configs for each (protocol, family), written as object literals of
 * the SDK's type, and compiled (test/support/sdk-declared-fields.ts).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { protocolAdapter } from "../../src/providers/create-llm-client.js";
import { FieldRefusals } from "../../src/providers/field-refusals.js";
import { type ProviderProtocol, providerLabels } from "../../src/providers/provider-profile.js";
import {
  type BodyUnderCheck,
  type FieldPath,
  type SdkBodyType,
  type SdkFinding,
  sdkFindings,
  withoutFields,
} from "../support/sdk-declared-fields.js";
import { builderTargets, builderTools, requestConfigArbitrary } from "./builder-targets.js";
import { historyArbitrary } from "./history-arbitrary.js";

/** Bodies per (protocol, family). */
const bodiesPerFamily = 150;

const sdkTypes: Record<ProviderProtocol, SdkBodyType> = {
  chat_completions: "SdkChatBody",
  anthropic: "SdkAnthropicBody",
  responses: "SdkResponsesBody",
  gemini: "SdkGeminiBody",
};

/** A field some targets carry on purpose that their protocol's SDK does not declare. */
interface VendorExtension {
  protocol: ProviderProtocol;
  path: FieldPath;
  /** The families (builder-targets.ts) that may carry it; every other target must not. */
  targets: readonly string[];
  why: string;
}

const chatEchoTargets = [
  "chat openai-gpt-5",
  "chat openai-gpt-chat",
  "chat deepseek",
  "chat kimi-thinking",
  "chat gemini-3 (Google)",
  "chat gemini-3 (OpenRouter)",
  "chat ollama",
];

/**
 * The allowlist: every vendor extension a built body may carry, and where. Keep
 * docs/providers.md ("Fields beyond the SDKs") in step.
 */
const extensions: readonly VendorExtension[] = [
  {
    protocol: "chat_completions",
    path: "messages[].reasoning_content",
    targets: ["chat deepseek", "chat kimi-thinking"],
    why: 'DeepSeek and Kimi refuse a thinking tool loop without it (400 "Missing `reasoning_content` field")',
  },
  {
    protocol: "chat_completions",
    path: "messages[].tool_calls[].extra_content",
    targets: ["chat gemini-3 (Google)", "chat gemini-3 (OpenRouter)"],
    why: "Google's OpenAI-compatible endpoint carries Gemini 3's thought signatures there, and refuses a call of the current turn without one",
  },
  {
    protocol: "chat_completions",
    path: "messages[].reasoning_details",
    targets: chatEchoTargets,
    why: "OpenRouter's reasoning details, sent back only to the model that streamed them (so only to a server that sends them); Mistral's schema refuses them and never gets them",
  },
  {
    protocol: "chat_completions",
    path: "top_k",
    targets: ["chat ollama"],
    why: "local servers (vLLM, llama.cpp, Ollama) honour top_k; OpenAI's schema has none",
  },
  ...(["temperature", "top_p", "top_k"] as const).map((path) => ({
    protocol: "anthropic" as const,
    path,
    targets: ["anthropic claude-budget", "anthropic claude-4.6", "anthropic claude-no-thinking"],
    why: "the Anthropic SDK no longer declares sampling parameters; these models take them (a refusal is answered by leaving the field out, and the profile never sends it again)",
  })),
];

/** The extensions `family` may carry. */
function allowedFor(family: string): FieldPath[] {
  return extensions
    .filter((extension) => extension.targets.includes(family))
    .map((extension) => extension.path);
}

/** Every allowed extension of any target of `protocol`: each target's bodies are searched for all of them. */
function extensionsOf(protocol: ProviderProtocol): FieldPath[] {
  return [
    ...new Set(
      extensions.filter((extension) => extension.protocol === protocol).map((extension) => extension.path),
    ),
  ];
}

interface Built {
  bodies: BodyUnderCheck[];
  /** Extensions a target's bodies carried that its allowlist does not name. */
  misplaced: string[];
  /** Extensions seen per target. */
  seen: Map<string, Set<FieldPath>>;
}

/** The bodies of every target, extensions taken out. */
function buildAll(): Built {
  const bodies: BodyUnderCheck[] = [];
  const misplaced: string[] = [];
  const seen = new Map<string, Set<FieldPath>>();
  for (const { family, profile } of builderTargets) {
    const adapter = protocolAdapter(profile, "k", new FieldRefusals());
    const origin = { provider: providerLabels[profile.protocol], model: profile.model };
    const allowed = allowedFor(family);
    const samples = fc.sample(fc.tuple(historyArbitrary(origin), requestConfigArbitrary), {
      numRuns: bodiesPerFamily,
      seed: 27,
    });
    const found = new Set<FieldPath>();
    seen.set(family, found);
    samples.forEach(([{ items }, config], index) => {
      const built: unknown = JSON.parse(
        adapter.buildHttpRequest({ system_prompt: "Be brief.", items, tools: builderTools, config }).body,
      );
      const stripped = withoutFields(built, extensionsOf(profile.protocol));
      for (const path of stripped.found) {
        if (allowed.includes(path)) found.add(path);
        else misplaced.push(`${family}: ${path}`);
      }
      bodies.push({ label: `${family} #${index}`, type: sdkTypes[profile.protocol], body: stripped.body });
    });
  }
  return { bodies, misplaced, seen };
}

describe("built bodies against the fields the official SDKs declare", () => {
  let built: Built;
  let findings: SdkFinding[];

  beforeAll(async () => {
    built = buildAll();
    findings = await sdkFindings(built.bodies);
  }, 120_000);

  it("finds no field the SDK does not declare, nor a value it does not take", () => {
    const report = findings
      .slice(0, 3)
      .map((finding) => `${finding.label}: ${finding.message}\n${finding.body}`);
    expect(report).toEqual([]);
  });

  it("finds a target's vendor extensions on that target alone", () => {
    expect([...new Set(built.misplaced)]).toEqual([]);
  });

  it.each(builderTargets.map((target) => target.family))(
    "sees every extension allowed for %s in its bodies",
    (family) => {
      // An allowance nothing uses any more is a hole for a future mistake: drop it.
      expect([...(built.seen.get(family) ?? [])].sort()).toEqual(allowedFor(family).sort());
    },
  );

  it("reports an undeclared field in a body (the check can fail)", async () => {
    const body = built.bodies.find((entry) => entry.type === "SdkChatBody")!;
    const anthropic = built.bodies.find((entry) => entry.type === "SdkAnthropicBody")!;
    const responses = built.bodies.find((entry) => entry.type === "SdkResponsesBody")!;
    const gemini = built.bodies.find((entry) => entry.type === "SdkGeminiBody")!;
    const mutated: BodyUnderCheck[] = [
      { ...body, label: "chat top-level", body: { ...(body.body as object), stream_option: {} } },
      {
        ...body,
        label: "chat nested",
        body: { ...(body.body as object), messages: [{ role: "user", content: "x", reasoning_content: "" }] },
      },
      { ...anthropic, label: "anthropic", body: { ...(anthropic.body as object), top_n: 1 } },
      { ...responses, label: "responses", body: { ...(responses.body as object), reasoning_effort: "low" } },
      {
        ...gemini,
        label: "gemini",
        body: { ...(gemini.body as object), generationConfig: { thinkingConfig: { thinkingLevel: "HIGH" } } },
      },
    ];
    const caught = await sdkFindings(mutated);
    expect(new Set(caught.map((finding) => finding.label))).toEqual(
      new Set(["chat top-level", "chat nested", "anthropic", "responses", "gemini"]),
    );
  });
});
