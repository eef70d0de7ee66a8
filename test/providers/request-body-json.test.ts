/**
 * Request bodies reuse the JSON of what does not change between requests (a tool's definition,
 * a message made from one history item): the bytes sent are still exactly those of serializing
 * the body afresh, whatever the history, and a refused field left out of one profile's requests
 * leaves the shared elements as they were.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import type { ToolMeta } from "../../src/model/tools.js";
import { capabilitiesFor } from "../../src/providers/capability-table.js";
import { chatRequestBody } from "../../src/providers/chat-completions/request.js";
import { protocolAdapter } from "../../src/providers/create-llm-client.js";
import { FieldRefusals } from "../../src/providers/field-refusals.js";
import { providerLabels } from "../../src/providers/provider-profile.js";
import { requestBodyJson } from "../../src/providers/request-body-json.js";
import { dropElementField } from "../../src/providers/wire-protocol.js";
import { builderTargets, builderTools } from "./builder-targets.js";
import { historyArbitrary } from "./history-arbitrary.js";

describe.each(builderTargets)("the $family builder's request bytes", ({ profile }) => {
  it("are those of a body built from fresh copies, after requests with part of the same history", () => {
    const adapter = protocolAdapter(profile, "k", new FieldRefusals());
    const origin = { provider: providerLabels[profile.protocol], model: profile.model };
    fc.assert(
      fc.property(historyArbitrary(origin), fc.nat(), ({ items }, cut) => {
        const config = { max_tokens: 1000 };
        const system_prompt = "Be brief.";
        // The elements made for the earlier request are reused by the later ones.
        adapter.buildHttpRequest({
          system_prompt,
          items: items.slice(0, cut % (items.length + 1)),
          tools: builderTools,
          config,
        });
        const sent = adapter.buildHttpRequest({ system_prompt, items, tools: builderTools, config }).body;
        const again = adapter.buildHttpRequest({ system_prompt, items, tools: builderTools, config }).body;
        const fresh = adapter.buildHttpRequest({
          system_prompt,
          items: structuredClone(items),
          tools: structuredClone(builderTools),
          config,
        }).body;
        expect(sent).toBe(fresh);
        expect(again).toBe(fresh);
      }),
      { numRuns: 200 },
    );
  });
});

describe("requestBodyJson", () => {
  it("writes what JSON.stringify writes, frozen elements, left-out fields and holes included", () => {
    const shared = Object.freeze({ role: "user", content: 'a "quoted"\n\u2028 line' });
    const body = {
      model: "m",
      absent: undefined,
      messages: [shared, { role: "assistant", content: null }, shared, undefined],
      stop: ["a", "b"],
      nested: { list: [shared] },
      stream: true,
    };
    expect(requestBodyJson(body)).toBe(JSON.stringify(body));
    expect(requestBodyJson(body)).toBe(JSON.stringify(body));
  });
});

describe("a chat request's shared elements", () => {
  const options = {
    model: "deepseek-reasoner",
    maxTokensField: "max_tokens" as const,
    capabilities: capabilitiesFor("chat_completions", "deepseek-reasoner", {}),
    origin: { provider: "chat_completions", model: "deepseek-reasoner" },
  };
  const items = [userMessage("hi"), assistantMessage("Hello."), userMessage("again")];

  it("keep a field another profile's server refused", () => {
    const refused = chatRequestBody({ items, tools: [], config: {} }, options);
    expect(refused.messages[1]).toHaveProperty("reasoning_content", "");
    dropElementField("messages", "reasoning_content")(refused as unknown as Record<string, unknown>);
    expect(refused.messages[1]).not.toHaveProperty("reasoning_content");
    const next = chatRequestBody({ items, tools: [], config: {} }, options);
    expect(next.messages[1]).toHaveProperty("reasoning_content", "");
  });

  it("follow a tool whose definition changed: the next request sends the new one", () => {
    const before: ToolMeta = { name: "lookup", description: "Look up", input_schema: { type: "object" } };
    const after: ToolMeta = { ...before, description: "Look it up in the index" };
    const first = requestBodyJson({ ...chatRequestBody({ items, tools: [before], config: {} }, options) });
    const second = requestBodyJson({ ...chatRequestBody({ items, tools: [after], config: {} }, options) });
    expect(first).toContain('"description":"Look up"');
    expect(second).toContain('"description":"Look it up in the index"');
    expect(second).not.toContain('"description":"Look up"');
  });
});
