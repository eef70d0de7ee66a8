/**
 * `resumeConversation` over a conversation its owner keeps: the loop tells the owner which
 * step is the run's last (a model answer without tool calls when no `onRunEnd` hook could
 * continue), so an owner that persists may commit that step with the run's end.
 */
import { describe, expect, it } from "vitest";
import type { Item } from "../../src/model/items.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import {
  type AppendHint,
  type CommitKind,
  type Conversation,
  resumeConversation,
} from "../../src/worker/index.js";
import { MockLlmClient } from "../support/mock-llm-client.js";
import { textResponse, weatherRoundTrip, weatherTool } from "./scripts.js";

/** A conversation kept in memory that records each append with its hint. */
class RecordingConversation implements Conversation {
  readonly appends: Array<{ kind: CommitKind; final: boolean }> = [];
  readonly #items: Item[];

  constructor(items: readonly Item[]) {
    this.#items = [...items];
  }

  get items(): readonly Item[] {
    return this.#items;
  }

  async append(items: readonly Item[], kind: CommitKind, hint?: AppendHint): Promise<void> {
    this.#items.push(...items);
    this.appends.push({ kind, final: hint?.final === true });
  }
}

function run(client: MockLlmClient, conversation: Conversation, options: { onRunEnd?: boolean } = {}) {
  return resumeConversation({
    client,
    conversation,
    tools: [weatherTool()],
    systemPrompt: null,
    requestConfig: {},
    requestCount: 0,
    ...(options.onRunEnd === true
      ? { interceptor: { onRunEnd: () => ({ action: "finish" as const }) } }
      : {}),
  });
}

describe("the last step of a run over an owner's conversation", () => {
  it("is marked final when the model answers without tool calls", async () => {
    const conversation = new RecordingConversation([userMessage("Hi")]);
    const end = await run(new MockLlmClient(textResponse("Hello!")), conversation);
    expect(end).toMatchObject({ result: "finished", requestCount: 1 });
    expect(conversation.appends).toEqual([{ kind: "assistant", final: true }]);
    expect(conversation.items).toEqual([userMessage("Hi"), assistantMessage("Hello!")]);
  });

  it("is the answer after the tools: the calls and their results are not final", async () => {
    const conversation = new RecordingConversation([userMessage("Weather?")]);
    const end = await run(MockLlmClient.withResponses(weatherRoundTrip()), conversation);
    expect(end).toMatchObject({ result: "finished", requestCount: 2 });
    expect(conversation.appends).toEqual([
      { kind: "assistant", final: false },
      { kind: "tool_results", final: false },
      { kind: "assistant", final: true },
    ]);
  });

  it("is never marked when an onRunEnd hook could continue the run", async () => {
    const conversation = new RecordingConversation([userMessage("Hi")]);
    const end = await run(new MockLlmClient(textResponse("Hello!")), conversation, { onRunEnd: true });
    expect(end).toMatchObject({ result: "finished" });
    expect(conversation.appends).toEqual([{ kind: "assistant", final: false }]);
  });
});
