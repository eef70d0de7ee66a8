/**
 * A small session port for testing a session's parts alone (the log writer, the approval gate,
 * the compactor, a turn's run, the scheduler): no actor. It is a real implementation of
 * `SessionPort`: a real log writer over a session in a real SQLite database, a real mailbox
 * (counting the tasks that enter it), and the events it publishes kept in order in memory.
 */
import { v7 as uuidv7 } from "uuid";
import type { SessionEventData } from "../../../src/api/session-events.js";
import { previewOf } from "../../../src/daemon/history/preview.js";
import { Mailbox } from "../../../src/daemon/session/mailbox.js";
import { SessionLogWriter } from "../../../src/daemon/session/session-log-writer.js";
import type { SessionOutlet } from "../../../src/daemon/session/session-outlet.js";
import type { SessionPort } from "../../../src/daemon/session/session-port.js";
import type { StoredSessionWriter } from "../../../src/daemon/storage/session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import type { LlmClient } from "../../../src/model/llm-client.js";
import { type TestServices, testServices } from "./session-services.js";

/** One event the port published (a delta as type `text`/`thinking` with its text). */
interface PublishedEvent {
  type: string;
  data: unknown;
}

export interface TestPort extends TestServices {
  port: SessionPort;
  sessionId: string;
  /** Everything published so far, in order. */
  events: PublishedEvent[];
  /** How many tasks entered the mailbox so far. */
  readonly serialized: number;
  /** The events published so far, as `type` or `type:kind` for history entries (`message:user`). */
  kinds(): string[];
}

/**
 * A port over a new session (a `session_start`, then `entries`) in a fresh database;
 * `client` answers the session's model requests (none: no provider configured); `writer`
 * wraps the storage's writer of the session (to make its commits fail at a chosen moment).
 */
export async function testPort(
  client: () => LlmClient | null = () => null,
  entries: readonly LogEntry[] = [],
  writer: (stored: StoredSessionWriter) => StoredSessionWriter = (stored) => stored,
): Promise<TestPort> {
  const env = testServices(client);
  const sessionId = uuidv7();
  const now = env.services.now();
  const log: LogEntry[] = [
    { kind: "session_start", ts: now, system_prompt: null, config: {}, history: [] },
    ...entries,
  ];
  await env.storage.createSession(
    { id: sessionId, workspace: env.workspace, createdAt: now },
    log,
    previewOf(log.map((entry, position) => ({ entry, position }))),
  );
  const stored = await env.storage.readLog(sessionId);
  const events: PublishedEvent[] = [];
  const outlet: SessionOutlet = {
    sessionId,
    publish: <T extends keyof SessionEventData>(type: T, data: SessionEventData[T]) => {
      events.push({ type, data });
    },
    now: env.services.now,
    logger: env.services.logger,
  };
  const row = await env.storage.getSession(sessionId);
  const logWriter = new SessionLogWriter(
    outlet,
    {
      storage: env.storage,
      writer: writer(env.storage.writerFrom(sessionId, stored)),
      preview: row!.preview,
    },
    stored,
  );
  const mailbox = new Mailbox();
  let serialized = 0;
  const port: SessionPort = {
    ...outlet,
    log: logWriter,
    publishDelta: (type, turnId, messageId, text) => {
      events.push({ type, data: { run_id: turnId, message_id: messageId, text } });
    },
    flushDeltas: () => undefined,
    serialize: (task) => {
      serialized++;
      return mailbox.run(task);
    },
  };
  return {
    ...env,
    port,
    sessionId,
    events,
    get serialized() {
      return serialized;
    },
    kinds: () =>
      events.map((event) => {
        if (event.type !== "message") return event.type;
        const entry = (event.data as { entry: { kind: string } }).entry;
        return `message:${entry.kind}`;
      }),
  };
}
