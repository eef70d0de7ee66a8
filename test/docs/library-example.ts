/**
 * The example of docs/library.md, as a function the docs test runs against the fake provider.
 * Keep the two in step: the doc shows this code with `baseUrl`, `dbPath` and `workspace` inlined.
 */
import {
  builtinTools,
  createLlmClient,
  createSession,
  type LogHeadRef,
  restore,
  SqliteStore,
  saveDelta,
  saveOutcome,
  saveTurnEnd,
  Worker,
} from "../../src/index.js";

export async function libraryExample(baseUrl: string, dbPath: string, workspace: string) {
  // A client for any of the four protocols; chat_completions on a local server needs no key.
  const client = createLlmClient({ protocol: "chat_completions", baseUrl, model: "qwen3:8b" });

  // A worker with a system prompt and the built-in workspace tools.
  const worker = new Worker(client);
  worker.setSystemPrompt("You are a careful coding agent.");
  for (const tool of builtinTools(workspace)) worker.registerTool(tool);

  // A durable, hash-chained log for the session.
  const store = new SqliteStore(dbPath);
  const created = await createSession(store, {
    system_prompt: worker.systemPrompt,
    config: worker.requestConfig,
    history: worker.history,
  });
  const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };

  // One run: lock (the prompt prefix stays byte-stable), run, unlock, persist what was added.
  const before = worker.history.length;
  const locked = worker.lock();
  const result = await locked.run("Create hello.txt saying hi, then tell me you did.");
  const unlocked = locked.unlock();
  await saveDelta(store, head, unlocked.history.slice(before));
  await saveTurnEnd(store, head, unlocked.requestCount);
  await saveOutcome(store, head, { type: result }, unlocked.lastRunInterrupted);

  // Later, or in another process: read back, verified, and replayed.
  const state = await restore(store, head.sessionId);
  await store.close();
  return { result, state, head };
}
