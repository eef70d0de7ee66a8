import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { SessionRegistry, SessionUnknownError } from "../../../src/daemon/session/session-registry.js";
import { textBlockStart, textBlockStop, textDelta } from "../../../src/model/events.js";
import { MockLlmClient } from "../../support/mock-llm-client.js";
import { type TestServices, testServices } from "./session-services.js";

describe("SessionRegistry", () => {
  let env: TestServices | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  function registryWith(answer: string): { registry: SessionRegistry; workspace: string } {
    env = testServices(() => new MockLlmClient([textBlockStart(0), textDelta(0, answer), textBlockStop(0)]));
    return { registry: new SessionRegistry(env.services), workspace: env.workspace };
  }

  async function create(registry: SessionRegistry, workspace: string): Promise<string> {
    const id = uuidv7();
    await registry.create({
      id,
      workspace,
      name: null,
      providerProfile: null,
      model: null,
      systemPrompt: null,
    });
    return id;
  }

  it("retries work once on a fresh actor when the actor stops underneath it", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    const first = (await registry.get(id)).cursor.generation;
    let calls = 0;
    const snapshot = await registry.withActor(id, async (actor) => {
      calls += 1;
      if (calls === 1) await registry.restart(id);
      return actor.snapshot();
    });
    expect(calls).toBe(2);
    expect(snapshot.cursor?.generation).not.toBe(first);
    expect(snapshot.cursor?.generation).toBe((await registry.get(id)).cursor.generation);
  });

  it("does not retry when the session is gone", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    await registry.withActor(id, (actor) => actor.delete());
    registry.forget(id);
    await expect(registry.withActor(id, (actor) => actor.snapshot())).rejects.toBeInstanceOf(
      SessionUnknownError,
    );
  });

  it("runs a turn for a submitted input and keeps its history durable across a reload", async () => {
    const { registry, workspace } = registryWith("Hello there");
    const id = await create(registry, workspace);
    const actor = await registry.get(id);
    await actor.submit(uuidv7(), { kind: "message", text: "Hi" }, null);
    for (let i = 0; i < 200 && (actor.busy || (await actor.snapshot(0)).pending_inputs.length > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await registry.restart(id);
    const history = (await registry.withActor(id, (fresh) => fresh.snapshot())).history.items;
    expect(history.map((entry) => [entry.kind, entry.content])).toEqual([
      ["user", [{ kind: "text", text: "Hi" }]],
      ["assistant", [{ kind: "text", text: "Hello there" }]],
    ]);
  });
});
