/**
 * Shared e2e setup: a fake provider and a daemon configured with one Chat Completions profile
 * pointing at it, plus small helpers the e2e files share (message texts of provider requests,
 * polling).
 *
 * Boundary rule: test support; it knows the daemon only through its process and HTTP API.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { text } from "../../support/fake-provider/reply.js";
import type { RecordedRequest } from "../../support/fake-provider/server.js";
import { FakeProvider, type Script } from "../../support/fake-provider/server.js";
import { startedForDescribe } from "../../support/started-for-describe.js";
import {
  DaemonHarness,
  type DatabaseKind,
  type HarnessOptions,
  type HistoryEntry,
} from "./daemon-harness.js";

export const fixtureProfile = "fixture";
export const fixtureModel = "fixture-model";

/** The provider profiles of a daemon that talks to `provider`. */
export function profileFor(provider: FakeProvider) {
  return {
    [fixtureProfile]: {
      protocol: "chat_completions" as const,
      baseUrl: provider.baseUrlWith("v1"),
      apiKey: "fixture-key",
      model: fixtureModel,
    },
  };
}

/**
 * Two profiles on `provider`: `chat` (Chat Completions, the fixture's model, with `chatExtra`)
 * and `claude` (Anthropic, claude-sonnet-4-5); `chat` is the active one.
 */
export function chatAndClaudeProfiles(provider: FakeProvider, chatExtra: Record<string, unknown> = {}) {
  return {
    chat: {
      protocol: "chat_completions" as const,
      baseUrl: provider.baseUrlWith("v1"),
      apiKey: "k",
      model: fixtureModel,
      ...chatExtra,
    },
    claude: {
      protocol: "anthropic" as const,
      baseUrl: provider.baseUrl,
      apiKey: "k",
      model: "claude-sonnet-4-5",
    },
  };
}

/** A fake provider and a daemon using it. */
export function startFixture(
  env: Record<string, string> = {},
  database: DatabaseKind = "sqlite",
): Promise<{ provider: FakeProvider; app: DaemonHarness }> {
  return startFixtureWith({ env, database });
}

/** A fake provider and a daemon using it, started with `options` besides its one profile. */
async function startFixtureWith(options: FixtureHarnessOptions): Promise<Fixture> {
  const provider = await FakeProvider.start();
  try {
    const app = await DaemonHarness.start({ ...options, providers: profileFor(provider) });
    return { provider, app };
  } catch (error) {
    await provider.close();
    throw error;
  }
}

/** What a fixture's daemon starts with besides its profile (`env`, `database`, `config`, ...). */
type FixtureHarnessOptions = Omit<HarnessOptions, "providers">;

/** A fake provider and the daemon that talks to it. */
export interface Fixture {
  provider: FakeProvider;
  app: DaemonHarness;
}

/**
 * One fake provider and one daemon for the enclosing `describe` (started before its tests,
 * closed after them; read the fields inside tests and hooks), the provider reset before each
 * test and then answering `answer` when one is given.
 */
export function useSharedFixture(options: FixtureHarnessOptions & { answer?: string } = {}): Fixture {
  const { answer, ...harness } = options;
  const fixture = startedForDescribe(
    () => startFixtureWith(harness),
    async ({ provider, app }) => {
      await app.close();
      await provider.close();
    },
  );
  beforeEach(() => {
    fixture.provider.reset();
    if (answer !== undefined) fixture.provider.script = () => text(answer);
  });
  return fixture;
}

/** The fake provider of a `describe` and the daemons its current test started. */
export interface FakeProviderScope {
  /** The provider, started before the first test; read it inside tests and hooks. */
  readonly provider: FakeProvider;
  /** Daemons the current test started, closed after that test. */
  readonly started: DaemonHarness[];
  /**
   * Resets the provider to answer with `script` (a plain "ok" when left out) and starts a daemon
   * closed after the current test, with one profile that talks to the provider unless `options`
   * give the providers (`providers: undefined`: an unconfigured daemon).
   */
  daemon(options?: HarnessOptions, script?: Script): Promise<DaemonHarness>;
}

/**
 * One fake provider for the enclosing `describe`, and the daemons each test starts and pushes on
 * `started`, closed after that test.
 */
export function useFakeProvider(): FakeProviderScope {
  let provider: FakeProvider | undefined;
  const started: DaemonHarness[] = [];
  beforeAll(async () => {
    provider = await FakeProvider.start();
  });
  afterEach(async () => {
    for (const app of started.splice(0)) await app.close();
  });
  afterAll(async () => {
    await provider?.close();
  });
  const scope: FakeProviderScope = {
    get provider(): FakeProvider {
      if (provider === undefined) throw new Error("the fake provider is read before it started");
      return provider;
    },
    started,
    async daemon(options = {}, script = () => text("ok")) {
      scope.provider.reset();
      scope.provider.script = script;
      const app = await DaemonHarness.start({ providers: profileFor(scope.provider), ...options });
      started.push(app);
      return app;
    },
  };
  return scope;
}

/** A Chat Completions message as the daemon sends it. */
export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}

/** The messages of a recorded Chat Completions request. */
export function messagesOf(request: RecordedRequest): ChatMessage[] {
  const body = request.body as { messages?: ChatMessage[] } | undefined;
  return body?.messages ?? [];
}

/** The text of a message's content (a string, or text parts joined). */
export function contentText(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part === "object" && part !== null && "text" in part ? String(part.text) : ""))
      .join("");
  }
  return "";
}

/** The texts of a history entry's text parts, joined. */
export function entryText(entry: HistoryEntry): string {
  return entry.content
    .filter((part) => part.kind === "text")
    .map((part) => part.text ?? "")
    .join("");
}

/** The result of a tool_result entry as text (JSON when the result is not a string). */
export function toolResultText(entry: HistoryEntry | undefined): string {
  const value = entry?.content.find((part) => part.field === "result")?.value;
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The result of the call `callId` among `entries`, as `toolResultText` gives it. */
export function toolResultOf(entries: readonly HistoryEntry[], callId: string): string {
  return toolResultText(
    entries.find((item) => item.kind === "tool_result" && item.tool?.tool_call_id === callId),
  );
}

/** Poll until a check gives a value (shared with the unit tests that wait on processes). */
export { eventually } from "../../support/eventually.js";

/** A promise with its resolve function, to hold a provider reply until the test releases it. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * Scripts `provider` to hold its first request until the returned gate opens and to answer each
 * request (the first once it is let through) with `answer(request index)`.
 */
export function holdFirstRequest(
  provider: FakeProvider,
  answer: (index: number) => string,
): { open: () => void } {
  const held = gate();
  provider.script = async (request) => {
    if (request.index === 0) await held.promise;
    return text(answer(request.index));
  };
  return held;
}
