/** Real SessionServices for session-layer tests: a temp SQLite database and a scripted client. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import type { NewSessionRequest } from "../../../src/daemon/actor/session-creation.js";
import type { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import type { SessionServices } from "../../../src/daemon/session/session-services.js";
import { type DaemonDatabase, openDaemonDatabase } from "../../../src/daemon/storage/database.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LlmClient } from "../../../src/model/llm-client.js";
import { modelLimits } from "../../../src/providers/model-limits.js";

export interface TestServices {
  services: SessionServices;
  /** The storage's database, to look at rows directly. */
  db: DaemonDatabase;
  storage: SqliteSessionStorage;
  workspace: string;
  cleanup(): Promise<void>;
}

/** Services over a fresh database; `client` answers every turn (none: turns fail unconfigured). */
export function testServices(client: () => LlmClient | null): TestServices {
  const dir = mkdtempSync(join(tmpdir(), "skein-session-"));
  const db = openDaemonDatabase(join(dir, "skein.sqlite"));
  const storage = new SqliteSessionStorage(db);
  const services: SessionServices = {
    storage,
    historySecret: "test-secret",
    now: () => Date.now(),
    isDraining: () => false,
    tools: async () => [],
    turnSettings: () => ({ maxToolRounds: 100 }),
    logger: { info: () => {}, warn: () => {}, error: () => {} },
    bindClient: (_profile, _model, config) => {
      const bound = client();
      if (bound === null) throw new Error("no provider configured");
      return {
        client: bound,
        profileName: "test",
        model: "test-model",
        requestConfig: config,
        limits: modelLimits({ protocol: "chat_completions", model: "test-model", contextWindow: 100_000 }),
      };
    },
    limitsOf: () =>
      client() === null
        ? null
        : modelLimits({ protocol: "chat_completions", model: "test-model", contextWindow: 100_000 }),
    describeProvider: (_profile, model, config) =>
      client() === null
        ? null
        : {
            provider_profile: "test",
            protocol: "chat_completions",
            model: model ?? "test-model",
            request_config: config,
          },
  };
  return {
    services,
    db,
    storage,
    workspace: dir,
    cleanup: async () => {
      await storage.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The request of a session `id` with every default in `workspace`. */
export function testSessionRequest(id: string, workspace: string): NewSessionRequest {
  return { id, workspace, name: null, providerProfile: null, model: null, systemPrompt: null };
}

/** Create a session (id `id`, default a new one) with every default in `workspace`; returns its id. */
export async function createTestSession(
  registry: SessionRegistry,
  workspace: string,
  id: string = uuidv7(),
): Promise<string> {
  await registry.create(testSessionRequest(id, workspace));
  return id;
}
