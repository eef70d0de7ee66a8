/**
 * The storage of the Node.js floor of a plain turn (bench/turn-floor-server.ts): what a minimal
 * server must write to make a turn durable, and nothing else. One SQLite file in WAL mode with
 * synchronous=NORMAL; a commit is durable once an fsync of the write-ahead log that began after
 * it has finished, on libuv's thread pool (as the daemon's src/log/wal-sync.ts does). Each
 * commit appends one hash-chained transcript entry (SHA-256 over the previous hash and the
 * entry) and signs the new head with Ed25519, as the daemon signs each recorded head.
 *
 * Boundary rule: bench support only; it shares no code with the daemon (it is the baseline the
 * daemon is measured against). SQLite's automatic checkpoint is left on (a minimal server's
 * choice; the daemon moves checkpoints to a worker thread of the same process).
 */
import { createHash, generateKeyPairSync, type KeyObject, sign } from "node:crypto";
import { fsync, openSync } from "node:fs";
import Database from "better-sqlite3";

const schema = `
CREATE TABLE sessions (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, activity_at INTEGER NOT NULL,
  input_order INTEGER NOT NULL DEFAULT 0, prompt_tokens INTEGER NOT NULL DEFAULT 0,
  completion_tokens INTEGER NOT NULL DEFAULT 0, transcript_count INTEGER NOT NULL DEFAULT 0);
CREATE TABLE transcript (session TEXT NOT NULL, position INTEGER NOT NULL, hash TEXT NOT NULL,
  prev_hash TEXT, kind TEXT NOT NULL, entry TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (session, position));
CREATE TABLE inputs (id TEXT PRIMARY KEY, session TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL,
  accepted_at INTEGER NOT NULL, acceptance_order INTEGER NOT NULL, delivery TEXT NOT NULL,
  transcript_position INTEGER, turn_id TEXT);
CREATE TABLE turns (id TEXT PRIMARY KEY, session TEXT NOT NULL, state TEXT NOT NULL,
  started_at INTEGER NOT NULL, ended_at INTEGER, input_ids TEXT NOT NULL);
CREATE TABLE heads (session TEXT PRIMARY KEY, position INTEGER NOT NULL, hash TEXT NOT NULL,
  signature TEXT NOT NULL);
`;

/** One session's chain as the store last wrote it. */
export interface FloorChain {
  position: number;
  hash: string | null;
}

/** A turn's start: the user's entry, its input row, the turn row, the session row, the signed head. */
export interface TurnStart {
  session: string;
  inputId: string;
  turnId: string;
  /** The input's JSON body, stored as received. */
  body: string;
  order: number;
  entry: string;
  at: number;
}

/** A turn's end: the answer's entry, the turn row completed, the session's usage, the signed head. */
export interface TurnEnd {
  session: string;
  turnId: string;
  entry: string;
  promptTokens: number;
  completionTokens: number;
  at: number;
}

export class FloorStore {
  readonly #db: Database.Database;
  readonly #walPath: string;
  readonly #key: KeyObject = generateKeyPairSync("ed25519").privateKey;
  #walFd: number | null = null;
  /** Waiters for the next fsync (they committed after the running one began). */
  #waiting: Array<() => void> = [];
  #flushing = false;
  readonly #insertEntry;
  readonly #insertInput;
  readonly #insertTurn;
  readonly #startSession;
  readonly #endTurn;
  readonly #endSession;
  readonly #putHead;
  readonly #start: (start: TurnStart, chain: FloorChain) => void;
  readonly #end: (end: TurnEnd, chain: FloorChain) => void;

  /** Creates the database at `path` (a new file). */
  constructor(path: string) {
    this.#db = new Database(path);
    this.#walPath = `${path}-wal`;
    this.#db.pragma("journal_mode = WAL");
    this.#db.pragma("synchronous = NORMAL");
    this.#db.exec(schema);
    const db = this.#db;
    this.#insertEntry = db.prepare(
      "INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    );
    this.#insertInput = db.prepare(
      "INSERT INTO inputs (id, session, kind, body, accepted_at, acceptance_order, delivery, transcript_position, turn_id) VALUES (?, ?, 'message', ?, ?, ?, 'committed', ?, ?)",
    );
    this.#insertTurn = db.prepare(
      "INSERT INTO turns (id, session, state, started_at, input_ids) VALUES (?, ?, 'running', ?, ?)",
    );
    this.#startSession = db.prepare(
      "UPDATE sessions SET input_order = ?, activity_at = ?, transcript_count = transcript_count + 1 WHERE id = ?",
    );
    this.#endTurn = db.prepare("UPDATE turns SET state = 'completed', ended_at = ? WHERE id = ?");
    this.#endSession = db.prepare(
      "UPDATE sessions SET prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?, activity_at = ?, transcript_count = transcript_count + 1 WHERE id = ?",
    );
    this.#putHead = db.prepare(
      "INSERT INTO heads (session, position, hash, signature) VALUES (?, ?, ?, ?) ON CONFLICT (session) DO UPDATE SET position = excluded.position, hash = excluded.hash, signature = excluded.signature",
    );
    this.#start = db.transaction((start: TurnStart, chain: FloorChain) => {
      const position = this.#append(start.session, chain, "user_input", start.entry, start.at);
      this.#insertInput.run(
        start.inputId,
        start.session,
        start.body,
        start.at,
        start.order,
        position,
        start.turnId,
      );
      this.#insertTurn.run(start.turnId, start.session, start.at, `["${start.inputId}"]`);
      this.#startSession.run(start.order, start.at, start.session);
      this.#signHead(start.session, chain);
    });
    this.#end = db.transaction((end: TurnEnd, chain: FloorChain) => {
      this.#append(end.session, chain, "assistant_items", end.entry, end.at);
      this.#endTurn.run(end.at, end.turnId);
      this.#endSession.run(end.promptTokens, end.completionTokens, end.at, end.session);
      this.#signHead(end.session, chain);
    });
  }

  /** A new session row (not part of a turn). */
  createSession(id: string): void {
    const at = Date.now();
    this.#db.prepare("INSERT INTO sessions (id, created_at, activity_at) VALUES (?, ?, ?)").run(id, at, at);
  }

  /** Commit a turn's start (one transaction); `chain` moves to the new head. Not yet durable. */
  commitStart(start: TurnStart, chain: FloorChain): void {
    this.#start(start, chain);
  }

  /** Commit a turn's end (one transaction); `chain` moves to the new head. Not yet durable. */
  commitEnd(end: TurnEnd, chain: FloorChain): void {
    this.#end(end, chain);
  }

  /** Resolves once everything committed before this call is on disk (one fsync shared by all waiting). */
  durable(): Promise<void> {
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
      if (!this.#flushing) this.#flush();
    });
  }

  #flush(): void {
    const batch = this.#waiting;
    this.#waiting = [];
    this.#flushing = true;
    this.#walFd ??= openSync(this.#walPath, "r");
    fsync(this.#walFd, (error) => {
      if (error !== null) throw error;
      this.#flushing = false;
      for (const resolve of batch) resolve();
      if (this.#waiting.length > 0) this.#flush();
    });
  }

  #append(session: string, chain: FloorChain, kind: string, entry: string, at: number): number {
    const position = chain.position + 1;
    const hash = createHash("sha256")
      .update(chain.hash ?? "")
      .update("\n")
      .update(entry)
      .digest("hex");
    this.#insertEntry.run(session, position, hash, chain.hash, kind, entry, at);
    chain.position = position;
    chain.hash = hash;
    return position;
  }

  #signHead(session: string, chain: FloorChain): void {
    const message = Buffer.from(`floor-head\n${session}\n${chain.position}\n${chain.hash}`);
    this.#putHead.run(session, chain.position, chain.hash, sign(null, message, this.#key).toString("base64"));
  }
}
