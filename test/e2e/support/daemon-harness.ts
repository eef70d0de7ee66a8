/**
 * End-to-end harness: runs the real daemon (`bin/skein.js daemon run`) as a child process on a
 * temporary home and talks to it over real HTTP, as a program written in any language would.
 *
 * Boundary rule: this file knows the daemon only through its process, its home files and its
 * HTTP API — never through its modules.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { v7 as uuidv7 } from "uuid";
import { CheckoutView } from "../../support/checkout-view.js";
import { OpenApiCheck } from "../../support/openapi-check.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { giveTree, type UnprivilegedUser } from "../../support/unprivileged-user.js";
import { SseConnection } from "./sse-client.js";

const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");
export const skeinBin = join(projectRoot, "bin/skein.js");

export interface ProviderProfileConfig {
  protocol: "chat_completions" | "responses" | "anthropic" | "gemini";
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Request defaults a profile may carry (see docs/providers.md). */
  maxOutputTokens?: number;
  temperature?: number;
  effort?: "minimal" | "low" | "medium" | "high" | "xhigh";
  thinkingBudget?: number;
  /** The model's context window, the compaction threshold and prices (docs/providers.md). */
  contextWindow?: number;
  compactThreshold?: number;
  prices?: { input: number; output: number; cacheRead?: number; cacheWrite?: number };
}

export interface HarnessOptions {
  /** Provider profiles written to config.json; the first is active. None: an unconfigured daemon. */
  providers?: Record<string, ProviderProfileConfig>;
  /** config.json's `mcpServers` (written with the providers). */
  mcpServers?: Record<string, unknown>;
  /**
   * Other top-level fields of config.json (written with the providers). Without
   * `approvalPolicy` here, the harness writes `{"default": "allow"}` so tools run unasked; give
   * `approvalPolicy: undefined` to leave it out (the built-in policy then applies).
   */
  config?: Record<string, unknown>;
  env?: Record<string, string>;
  /** Where the daemon keeps its state: SQLite in its home (default), or a fresh PostgreSQL schema. */
  database?: DatabaseKind;
  /**
   * The home's head-signing key (PKCS#8 PEM), written before the first start: the nodes of a
   * cluster share one so each accepts the heads the others signed.
   */
  signingKeyPem?: string;
  /**
   * The address the daemon is reached at (its SKEIN_HOST, or an address in the network namespace
   * it runs in): every request connects there and names it in Host. Default 127.0.0.1.
   */
  address?: string;
  /** A command the daemon is started under, e.g. `["ip", "netns", "exec", "ns1"]` (it must exec the daemon). */
  launcher?: string[];
  /**
   * The user the daemon runs as (the harness runs as root): its temporary root is given to that
   * user at each boot, and it sees the checkout through a `CheckoutView` (the checkout may lie
   * where that user cannot enter), so paths into the checkout in `mcpServers`' command, args
   * and cwd are written as it sees them. Default: the harness's own user.
   */
  user?: UnprivilegedUser;
  /**
   * The `skein` command the daemon is started from; default this checkout's `bin/skein.js`. A
   * bench names another checkout's built one to compare two builds in one run.
   */
  skeinBin?: string;
  /** How long boot waits for `GET /server` to say ready (default 20 s; a daemon under valgrind needs more). */
  readyTimeoutMs?: number;
}

/** The storage backends the e2e suites run against. */
export type DatabaseKind = "sqlite" | "postgres";

/** Both backends, for `describe.each` (`$name` reads well in a suite's title). */
export const databaseKinds: ReadonlyArray<{ name: string; database: DatabaseKind }> = [
  { name: "SQLite", database: "sqlite" },
  { name: "PostgreSQL", database: "postgres" },
];

/** One batch of the session stream: the first `data:` frame of an attach. */
export interface StreamPage {
  generation: string;
  cursor: number;
  events: Array<{ type: string; sequence?: number; data: Record<string, unknown> }>;
  snapshot?: Record<string, unknown> & { history: HistoryPage };
}

export interface HistoryPage {
  items: HistoryEntry[];
  older: string | null;
  newer: string | null;
  high_water: number;
}

export interface HistoryEntry {
  id: string;
  position: number;
  kind: string;
  input_id: string | null;
  turn_id: string | null;
  checkpoint_id: string | null;
  content: Array<{ kind: string; text?: string; field?: string; value?: unknown }>;
  tool: { name: string; tool_call_id: string; is_error?: boolean } | null;
  thinking_duration_ms?: number | null;
  /** The entry holds what an answer had streamed when an interrupt cut it short. */
  interrupted?: true;
}

/** An input receipt (docs/http-api.md, "Receipt"). */
export interface Receipt {
  id: string;
  session_id: string;
  kind: string;
  admission: string;
  accepted_at: string;
  acceptance_order: number;
  delivery: "pending" | "committed" | "cancelled";
  transcript_position: number | null;
  turn: null | { id: string; state: string; started_at: string; ended_at: string | null };
}

/** An HTTP answer with its body already read. */
export interface ApiResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export class DaemonHarness {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  port = 0;
  token = "";
  pid = 0;
  /**
   * The daemon's own OpenAPI document, read at each boot: every answer and stream frame this
   * harness receives is checked against it (a mismatch fails the request).
   */
  openapi: OpenApiCheck | null = null;
  /** The PostgreSQL schema of this daemon (database: "postgres"), dropped on close. */
  pg: PgSchema | null = null;
  private child: ChildProcess | null = null;
  private childExit: Promise<number | null> | null = null;
  /** Where requests connect to (and what they name in Host, with the port). */
  readonly address: string;
  private readonly env: Record<string, string>;
  private readonly extraConfig: Record<string, unknown>;
  private readonly launcher: string[];
  private readonly readyTimeoutMs: number;
  /** The `skein` command the daemon is started from. */
  readonly bin: string;
  private readonly user: { user: UnprivilegedUser; view: CheckoutView } | null;

  private constructor(options: HarnessOptions) {
    this.root = mkdtempSync(join(tmpdir(), "skein-e2e-"));
    this.home = join(this.root, "home");
    this.workspace = join(this.root, "workspace");
    mkdirSync(this.workspace, { recursive: true });
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    this.env = { ...(options.env ?? {}) };
    this.address = options.address ?? "127.0.0.1";
    this.launcher = options.launcher ?? [];
    this.readyTimeoutMs = options.readyTimeoutMs ?? 20_000;
    this.bin = options.skeinBin ?? skeinBin;
    this.extraConfig = { approvalPolicy: { default: "allow" }, ...options.config };
    this.user =
      options.user === undefined ? null : { user: options.user, view: CheckoutView.open(options.user) };
    if (options.providers !== undefined) this.writeProviders(options.providers, options.mcpServers);
    if (options.signingKeyPem !== undefined) {
      writeFileSync(join(this.home, "head-signing-key.pem"), options.signingKeyPem, { mode: 0o600 });
      // As an operator provisions a node: the key and the record that every head is signed.
      writeFileSync(
        join(this.home, "head-signing.json"),
        JSON.stringify({ every_head_signed_since: new Date().toISOString(), signed_at_start: 0 }),
        { mode: 0o600 },
      );
    }
  }

  /** Start a daemon on a fresh home and wait until it is ready. */
  static async start(options: HarnessOptions = {}): Promise<DaemonHarness> {
    const harness = new DaemonHarness(options);
    if (options.database === "postgres") {
      harness.pg = await createPgSchema("skein_e2e");
      harness.setEnv("SKEIN_DB", harness.pg.url);
    }
    try {
      await harness.boot();
    } catch (error) {
      await harness.pg?.drop();
      throw error;
    }
    return harness;
  }

  /** Write config.json (atomically, as a user's editor might not; the daemon must cope either way). */
  writeProviders(
    providers: Record<string, ProviderProfileConfig>,
    mcpServers?: Record<string, unknown>,
  ): void {
    const names = Object.keys(providers);
    const config = {
      active: names[0] ?? null,
      providers,
      ...(mcpServers === undefined ? {} : { mcpServers: this.asDaemonSees(mcpServers) }),
      ...this.extraConfig,
    };
    const tmp = join(this.home, "config.json.tmp");
    writeFileSync(tmp, JSON.stringify(config, null, 2), { mode: 0o600 });
    writeFileSync(join(this.home, "config.json"), readFileSync(tmp));
    rmSync(tmp);
  }

  /** `mcpServers` with the paths into the checkout its command, args and cwd name as the daemon sees them. */
  private asDaemonSees(mcpServers: Record<string, unknown>): Record<string, unknown> {
    const view = this.user?.view;
    if (view === undefined) return mcpServers;
    const seen = (value: unknown) => (typeof value === "string" ? view.pathOf(value) : value);
    return Object.fromEntries(
      Object.entries(mcpServers).map(([name, entry]) => {
        if (typeof entry !== "object" || entry === null) return [name, entry];
        const server = { ...(entry as Record<string, unknown>) };
        for (const key of ["command", "cwd"]) if (key in server) server[key] = seen(server[key]);
        if (Array.isArray(server.args)) server.args = server.args.map(seen);
        return [name, server];
      }),
    );
  }

  setEnv(name: string, value: string | undefined): void {
    if (value === undefined) delete this.env[name];
    else this.env[name] = value;
  }

  get logPath(): string {
    return join(this.home, "daemon.log");
  }

  readLog(): string {
    try {
      return readFileSync(this.logPath, "utf8");
    } catch {
      return "";
    }
  }

  /**
   * Run one statement on the daemon's database behind its back (`?` placeholders, either
   * backend); its rows (none for a statement that returns none).
   */
  async sql<R = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<R[]> {
    if (this.pg !== null) {
      let n = 0;
      return this.pg.query(
        text.replace(/\?/g, () => `$${++n}`),
        params,
      ) as Promise<R[]>;
    }
    const db = new Database(this.dbPath);
    try {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all(...params) as R[];
      statement.run(...params);
      return [];
    } finally {
      db.close();
    }
  }

  /** Names of the database's tables (the daemon's and the log's). */
  async tableNames(): Promise<string[]> {
    const rows =
      this.pg !== null
        ? await this.sql<{ name: string }>(
            "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema()",
          )
        : await this.sql<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'");
    return rows.map((row) => row.name).sort();
  }

  /** Start the daemon process and wait for `GET /server` to say ready. */
  async boot(): Promise<void> {
    const log = openSync(this.logPath, "a");
    const flags = process.env.SKEIN_NODE_FLAGS ? process.env.SKEIN_NODE_FLAGS.split(" ") : [];
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.root,
      SKEIN_HOME: this.home,
      ...this.env,
    };
    let child: ChildProcess;
    if (this.user === null) {
      const command = [...this.launcher, process.execPath, ...flags, this.bin, "daemon", "run"];
      child = spawn(command[0]!, command.slice(1), { env, stdio: ["ignore", log, log] });
    } else {
      if (this.launcher.length > 0) throw new Error("a daemon run as another user cannot have a launcher");
      giveTree(this.root, this.user.user);
      const { view } = this.user;
      child = view.spawn(process.execPath, [...flags, view.pathOf(this.bin), "daemon", "run"], {
        env,
        stdio: ["ignore", log, log],
      });
    }
    this.child = child;
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    this.childExit = exited;
    const deadline = Date.now() + this.readyTimeoutMs;
    for (;;) {
      const early = await Promise.race([exited, sleep(20).then(() => "running" as const)]);
      if (early !== "running") {
        throw new Error(`daemon exited with ${early} before it was ready; log:\n${this.readLog()}`);
      }
      if (this.refresh(child.pid ?? 0)) {
        try {
          const server = await this.api("/server");
          if (server.status === 200 && server.json().state === "ready") {
            const document = await this.api("/openapi.json");
            if (document.status !== 200)
              throw new Error(`GET /openapi.json: ${document.status} ${document.text}`);
            this.openapi = new OpenApiCheck(document.json());
            return;
          }
        } catch {
          // not listening yet
        }
      }
      if (Date.now() > deadline)
        throw new Error(`daemon not ready after ${this.readyTimeoutMs} ms; log:\n${this.readLog()}`);
    }
  }

  private refresh(expectedPid: number): boolean {
    try {
      const info = JSON.parse(readFileSync(join(this.home, "daemon.json"), "utf8")) as {
        pid: number;
        port: number;
        token: string;
      };
      if (info.pid !== expectedPid) return false;
      this.pid = info.pid;
      this.port = info.port;
      this.token = info.token;
      return true;
    } catch {
      return false;
    }
  }

  /** Restart the daemon: gracefully (POST /server/shutdown) or by SIGKILL. */
  async restart(options: { crash: boolean }): Promise<void> {
    if (options.crash) await this.kill();
    else await this.shutdown();
    await this.boot();
  }

  /** SIGKILL the daemon and wait for it to be gone. */
  async kill(): Promise<void> {
    const child = this.child;
    if (child === null || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((done) => child.once("exit", () => done()));
    child.kill("SIGKILL");
    await gone;
    this.child = null;
  }

  /** Graceful shutdown through the API; waits for the process to exit. */
  async shutdown(timeoutMs = 5_000): Promise<number | null> {
    const child = this.child;
    if (child === null || child.exitCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)));
    const server = (await this.api("/server")).json<{ instance_id: string }>();
    await this.api("/server/shutdown", {
      method: "POST",
      body: { instance_id: server.instance_id, timeout_ms: timeoutMs },
    });
    const code = await Promise.race([exited, sleep(timeoutMs + 10_000).then(() => "timeout" as const)]);
    if (code === "timeout") throw new Error("daemon did not exit after shutdown");
    this.child = null;
    return code;
  }

  /** Stop the daemon (gracefully, then by force) and remove the temporary root. */
  async close(): Promise<void> {
    try {
      if (this.child !== null && this.child.exitCode === null) await this.shutdown(2_000);
    } catch {
      await this.kill();
    }
    await this.kill();
    rmSync(this.root, { recursive: true, force: true });
    this.user?.view.close();
    await this.pg?.drop();
  }

  /** One HTTP request to the daemon with its token; the body, when given, is sent as JSON. */
  api(
    path: string,
    options: { method?: string; headers?: Record<string, string>; body?: unknown; rawBody?: string } = {},
  ): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token}`,
      ...(options.body !== undefined ? { "content-type": "application/json" } : {}),
      ...(options.headers ?? {}),
    };
    const body = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
    const method = options.method ?? "GET";
    const openapi = this.openapi;
    return rawRequest(this.port, { method, path, headers, body, address: this.address }).then((answer) => {
      openapi?.checkAnswer(
        method,
        path,
        answer.status,
        headerText(answer.headers["content-type"]),
        answer.text,
      );
      return answer;
    });
  }

  /** Create a session (201) in the harness workspace; returns its id. */
  async createSession(body: Record<string, unknown> = {}): Promise<string> {
    const id = uuidv7();
    const response = await this.api(`/sessions/${id}`, {
      method: "PUT",
      headers: { "if-none-match": "*" },
      body: { kind: "new", workspace: this.workspace, ...body },
    });
    if (response.status !== 201) throw new Error(`create session: ${response.status} ${response.text}`);
    return id;
  }

  /** Submit a message input; returns the receipt. */
  async prompt(sessionId: string, text: string, inputId = uuidv7()): Promise<Record<string, unknown>> {
    const response = await this.api(`/sessions/${sessionId}/inputs/${inputId}`, {
      method: "PUT",
      body: { kind: "message", text },
    });
    if (response.status !== 202) throw new Error(`prompt: ${response.status} ${response.text}`);
    return response.json();
  }

  /** Wait until the session is idle with no pending input. */
  async idle(sessionId: string, timeoutMs = 20_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await this.api(`/sessions/${sessionId}?tail=0`);
      if (response.status === 200) {
        const snapshot = response.json<{ status: { phase: string }; pending_inputs: unknown[] }>();
        if (snapshot.status.phase === "idle" && snapshot.pending_inputs.length === 0) return snapshot;
      } else if (response.status !== 503) {
        throw new Error(`idle: ${response.status} ${response.text}`);
      }
      if (Date.now() > deadline) throw new Error(`session ${sessionId} not idle after ${timeoutMs} ms`);
      await sleep(25);
    }
  }

  /** Prompt and wait for the turn to finish. */
  async turn(sessionId: string, text: string): Promise<void> {
    await this.prompt(sessionId, text);
    await this.idle(sessionId);
  }

  /** The SQLite file of this home (the default SKEIN_DB). */
  get dbPath(): string {
    return join(this.home, "skein.sqlite");
  }

  /** Send `signal` to the daemon and wait for it to exit; resolves with its exit code. */
  async signal(signal: NodeJS.Signals, timeoutMs = 15_000): Promise<number | null> {
    const child = this.child;
    if (child === null) throw new Error("no daemon is running");
    child.kill(signal);
    return this.waitExit(timeoutMs);
  }

  /** Wait for the running daemon process to exit (however it was asked to); resolves with its exit code. */
  async waitExit(timeoutMs = 15_000): Promise<number | null> {
    const exited = this.childExit;
    if (exited === null) throw new Error("no daemon was started");
    const code = await Promise.race([exited, sleep(timeoutMs).then(() => "timeout" as const)]);
    if (code === "timeout") throw new Error(`daemon did not exit within ${timeoutMs} ms`);
    this.child = null;
    return code;
  }

  /** Run one more `skein daemon run` on this home and wait for it to exit: its code and output. */
  runAnotherDaemon(timeoutMs = 15_000): Promise<{ code: number | null; output: string }> {
    return new Promise((done, fail) => {
      const child = spawn(
        process.execPath,
        [
          ...(process.env.SKEIN_NODE_FLAGS ? process.env.SKEIN_NODE_FLAGS.split(" ") : []),
          skeinBin,
          "daemon",
          "run",
        ],
        {
          env: {
            PATH: process.env.PATH ?? "/usr/bin:/bin",
            HOME: this.root,
            SKEIN_HOME: this.home,
            ...this.env,
          },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        fail(new Error(`the second daemon did not exit within ${timeoutMs} ms; output:\n${output}`));
      }, timeoutMs);
      child.once("close", (code) => {
        clearTimeout(timer);
        done({ code, output });
      });
    });
  }

  /** An input's receipt (GET /sessions/{sid}/inputs/{iid}), asserting 200. */
  async receipt(sessionId: string, inputId: string): Promise<Receipt> {
    const response = await this.api(`/sessions/${sessionId}/inputs/${inputId}`);
    if (response.status !== 200) throw new Error(`receipt: ${response.status} ${response.text}`);
    return response.json<Receipt>();
  }

  /** A page of history (GET /sessions/{id}/history with `query`), asserting 200. */
  async history(sessionId: string, query = "limit=200"): Promise<HistoryPage> {
    const response = await this.api(`/sessions/${sessionId}/history?${query}`);
    if (response.status !== 200) throw new Error(`history: ${response.status} ${response.text}`);
    return response.json<HistoryPage>();
  }

  /** The kinds of a session's history items, oldest first (the first page of `history`). */
  async historyKinds(sessionId: string): Promise<string[]> {
    return (await this.history(sessionId)).items.map((entry) => entry.kind);
  }

  /** Open a session stream and keep it open (after a cursor, or with a Last-Event-ID header). */
  openStream(
    sessionId: string,
    options: { after?: { generation: string; cursor: number }; tail?: number; lastEventId?: string } = {},
  ): Promise<SseConnection> {
    const query = new URLSearchParams();
    if (options.after !== undefined) {
      query.set("after_generation", options.after.generation);
      query.set("after_seq", String(options.after.cursor));
    }
    if (options.tail !== undefined) query.set("tail", String(options.tail));
    const suffix = query.size > 0 ? `?${query}` : "";
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    return SseConnection.open(
      this.port,
      `/sessions/${sessionId}${suffix}`,
      headers,
      this.openapi ?? undefined,
      this.address,
    );
  }

  /** Open the session list's stream (`GET /sessions` as SSE) with `query`, optionally resuming. */
  openListStream(query = "", options: { lastEventId?: string } = {}): Promise<SseConnection> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
    return SseConnection.open(
      this.port,
      `/sessions${query === "" ? "" : `?${query}`}`,
      headers,
      this.openapi ?? undefined,
      this.address,
    );
  }

  /** The first batch of a fresh SSE attach (optionally resuming after a previous page); the stream is closed after it. */
  async streamPage(
    sessionId: string,
    after?: { generation: string; cursor: number },
    options: { tail?: number } = {},
  ): Promise<StreamPage> {
    const stream = await this.openStream(sessionId, { after, tail: options.tail });
    try {
      return (await stream.next()).batch;
    } finally {
      stream.close();
    }
  }
}

/** A raw HTTP/1.1 request, to loopback unless `address` says where (fetch would forbid some of the headers the tests need). */
export function rawRequest(
  port: number,
  options: {
    method: string;
    path: string;
    headers: Record<string, string>;
    body?: string | undefined;
    address?: string;
  },
): Promise<ApiResponse> {
  const address = options.address ?? "127.0.0.1";
  return new Promise((done, fail) => {
    const req = httpRequest(
      {
        host: address,
        port,
        method: options.method,
        path: options.path,
        headers: { host: `${hostInUrl(address)}:${port}`, ...options.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          done({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json<T>() {
              return JSON.parse(text) as T;
            },
          });
        });
        res.on("error", fail);
      },
    );
    req.on("error", fail);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** An address as a URL or Host header names it (IPv6 in brackets). */
function hostInUrl(address: string): string {
  return address.includes(":") ? `[${address}]` : address;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** The user prompts in a page of history, in order. */
export function userTexts(items: readonly HistoryEntry[]): string[] {
  return items
    .filter((entry) => entry.kind === "user")
    .flatMap((entry) => entry.content.filter((part) => part.kind === "text").map((part) => part.text ?? ""));
}
