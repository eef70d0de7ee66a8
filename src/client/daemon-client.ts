/**
 * `DaemonClient`: a typed client of the Skein daemon's HTTP API (the public entry is index.ts).
 *
 * Boundary rule: HTTP only; nothing here touches the daemon's modules or its database. The
 * endpoint comes from the home's daemon.json and is re-read when a connection is refused or the
 * token is rejected (a restarted daemon has a new token and maybe a new port); the request is
 * then sent once more, which is safe because neither failure lets the request reach a handler.
 * Error answers become `DaemonApiError` (status, problem code, detail).
 */
import type {
  ApprovalAnswerBody,
  ApprovalMode,
  ApprovalPolicy,
  ApprovalPolicyAnswer,
  ApprovalPolicyBody,
  ApprovalRecord,
} from "../api/approvals.js";
import type { LoginLink } from "../api/browser-login.js";
import type { ClusterInfo } from "../api/cluster.js";
import type { ConfigView } from "../api/config.js";
import type { ContentSlice, HistoryPage, HistoryQuery } from "../api/history.js";
import type { CancelAnswer, InputBody, InputReceipt, InterruptAnswer, InterruptBody } from "../api/inputs.js";
import type { McpStatus, McpTestBody, McpTestReport } from "../api/mcp-status.js";
import type { ProviderTestAnswer, ProviderTestBody } from "../api/provider-test.js";
import type { GcReport } from "../api/retention.js";
import type { ServerInfo, ShutdownAnswer, ShutdownBody } from "../api/server.js";
import type { CreatedSession } from "../api/session-creation.js";
import type { SessionSettings, SessionSettingsBody } from "../api/session-settings.js";
import type {
  CompactAnswer,
  RepairAnswer,
  SessionSnapshot,
  SessionSummary,
} from "../api/session-snapshot.js";
import type {
  DeleteAnswer,
  ForkSessionBody,
  NewSessionBody,
  SessionList,
  SessionListQuery,
} from "../api/sessions.js";
import type { VerifyReport } from "../api/verify-report.js";
import { readDiscoveryFile } from "../home/discovery-file.js";
import { skeinHome } from "../home/home.js";
import { processAlive } from "../model/process-alive.js";
import { apiErrorFrom, DaemonProtocolError, DaemonUnreachableError } from "./api-errors.js";
import { type BudgetCalls, budgetCalls } from "./budget-calls.js";
import type { CallOptions, DaemonClientOptions } from "./client-options.js";
import { type DaemonEndpoint, endpointOf } from "./daemon-endpoint.js";
import { clientAgents, type ExchangeAnswer, exchange, isConnectionRefused } from "./http-exchange.js";
import { type ScheduleCalls, scheduleCalls } from "./schedule-calls.js";
import { allSessionPages } from "./session-pages.js";
import {
  type FollowListOptions,
  type FollowOptions,
  followSession,
  followSessionList,
  type SessionListItem,
  type StreamItem,
} from "./session-stream.js";
import { type TokenCalls, tokenCalls } from "./token-calls.js";

export type { DaemonClientOptions } from "./client-options.js";

/** A connection to one daemon (or to whichever daemon currently serves a home). */
export class DaemonClient {
  /** The home whose daemon.json names the daemon; null for a fixed endpoint. */
  readonly home: string | null;
  /** The connection pools of this client's requests (its streams reuse an idle connection). */
  readonly agents = clientAgents();
  readonly #timeoutMs: number;
  readonly #startDaemon: (() => Promise<unknown>) | null;
  #restarting: Promise<boolean> | null = null;
  #endpoint: DaemonEndpoint | null;

  constructor(options: DaemonClientOptions = {}) {
    this.#endpoint = options.endpoint ?? null;
    this.home = options.endpoint === undefined ? (options.home ?? skeinHome()) : (options.home ?? null);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#startDaemon = options.endpoint === undefined ? (options.startDaemon ?? null) : null;
  }

  /** A client of the daemon serving `home`. */
  static forHome(home: string = skeinHome()): DaemonClient {
    return new DaemonClient({ home });
  }

  /** The endpoint requests go to; reads daemon.json the first time. Throws DaemonUnreachableError. */
  endpoint(): DaemonEndpoint {
    if (this.#endpoint !== null) return this.#endpoint;
    if (this.home === null) throw new DaemonUnreachableError(null, "no endpoint was given");
    const info = readDiscoveryFile(this.home);
    if (info === null)
      throw new DaemonUnreachableError(this.home, "no daemon is running (there is no daemon.json)");
    this.#endpoint = endpointOf(info);
    return this.#endpoint;
  }

  /** Re-read daemon.json; true when it names another port or token than before. */
  rediscover(): boolean {
    if (this.home === null) return false;
    let info: ReturnType<typeof readDiscoveryFile>;
    try {
      info = readDiscoveryFile(this.home);
    } catch {
      info = null;
    }
    const before = this.#endpoint;
    if (info === null) {
      this.#endpoint = null;
      return before !== null;
    }
    this.#endpoint = endpointOf(info);
    return before === null || before.port !== info.port || before.token !== info.token;
  }

  /**
   * When the home's daemon crashed (daemon.json is left behind naming a process that is gone)
   * and the client may start daemons, start one and re-read daemon.json; true when it did.
   * Concurrent callers share one start.
   */
  restartCrashed(): Promise<boolean> {
    const start = this.#startDaemon;
    const home = this.home;
    if (start === null || home === null) return Promise.resolve(false);
    if (this.#restarting === null) {
      const restarting = (async () => {
        try {
          const info = readDiscoveryFile(home);
          if (info === null || processAlive(info.pid)) return false;
          await start();
          this.rediscover();
          return true;
        } catch {
          return false;
        }
      })();
      this.#restarting = restarting;
      void restarting.finally(() => {
        if (this.#restarting === restarting) this.#restarting = null;
      });
    }
    return this.#restarting;
  }

  /** `GET /server`. */
  server(timeoutMs?: number): Promise<ServerInfo> {
    return this.#call("GET", "/server", timeoutMs === undefined ? {} : { timeoutMs });
  }

  /** `POST /web/login-codes`: a one-time link that signs a browser in to the web UI. */
  createLoginLink(): Promise<LoginLink> {
    return this.#call("POST", "/web/login-codes");
  }

  /** `GET /mcp`: the configured MCP servers, their instances' state, tools and last errors. */
  mcpStatus(): Promise<McpStatus> {
    return this.#call("GET", "/mcp");
  }

  /** `POST /mcp/{name}/test`: the daemon starts the server now, in its own environment, and reports. */
  testMcpServer(name: string, workspace?: string): Promise<McpTestReport> {
    return this.#call("POST", `/mcp/${encodeURIComponent(name)}/test`, {
      body: (workspace === undefined ? {} : { workspace }) satisfies McpTestBody,
      // A server may take its startup timeout (30 s by default, at most 10 min) to answer.
      timeoutMs: 660_000,
    });
  }

  /** The budget routes (`/sessions/{sid}/budget`): set or remove a session's own budget. */
  readonly budgets: BudgetCalls = budgetCalls((method, path, options) => this.#call(method, path, options));
  /** The schedule routes (`/schedules`): create, list, read, pause or resume, remove. */
  readonly schedules: ScheduleCalls = scheduleCalls((method, path, options) =>
    this.#call(method, path, options),
  );
  /** The token routes (`/tokens`): create, list, revoke named API tokens. */
  readonly tokens: TokenCalls = tokenCalls((method, path, options) => this.#call(method, path, options));

  /** `GET /cluster`: the nodes sharing the daemon's database (none on SQLite). */
  cluster(): Promise<ClusterInfo> {
    return this.#call("GET", "/cluster");
  }

  /** `GET /config`: where `skein config` writes for this daemon, and the config in force there. */
  config(): Promise<ConfigView> {
    return this.#call("GET", "/config");
  }

  /**
   * Set (`value` given) or remove one entry of the cluster's shared config: `PUT`/`DELETE
   * /config/{kind}/{name}`; the config in force after it.
   */
  changeConfig(
    kind: "profiles" | "mcp-servers" | "settings",
    name: string,
    value?: unknown,
  ): Promise<ConfigView> {
    const path = `/config/${kind}/${encodeURIComponent(name)}`;
    if (value === undefined) return this.#call("DELETE", path);
    return this.#call("PUT", path, { body: kind === "settings" ? { value } : value });
  }

  /** `POST /server/shutdown`: the daemon drains (running turns get `timeoutMs`) and exits. */
  shutdown(instanceId: string, timeoutMs?: number): Promise<ShutdownAnswer> {
    const body: ShutdownBody =
      timeoutMs === undefined
        ? { instance_id: instanceId }
        : { instance_id: instanceId, timeout_ms: timeoutMs };
    return this.#call("POST", "/server/shutdown", { body });
  }

  /** `GET /sessions`: every session (or those `query` selects), newest activity first, page after page. */
  listSessions(query: SessionListQuery = {}): Promise<SessionSummary[]> {
    return allSessionPages(query, (path) => this.#call<SessionList>("GET", path));
  }

  /** `GET /sessions/{id}`: the snapshot with the newest `tail` history entries (default 100). */
  getSession(id: string, tail?: number): Promise<SessionSnapshot> {
    return this.#call("GET", `${sessionPath(id)}${tail === undefined ? "" : `?tail=${tail}`}`);
  }

  /**
   * `PUT /sessions/{id}` (If-None-Match: *): a new session; `id` must be a fresh UUIDv7. With
   * `body.input` (its id a fresh UUIDv7 too) its first input is admitted and its turn started
   * in the same commit: the answer's `input` is its receipt, and following the stream from the
   * answer's `cursor` misses nothing of the turn.
   */
  createSession(id: string, body: NewSessionBody): Promise<CreatedSession> {
    return this.#call("PUT", sessionPath(id), {
      body: { kind: "new", ...body },
      headers: { "if-none-match": "*" },
    });
  }

  /** `PUT /sessions/{id}` with a fork body: a copy of the source's history up to `checkpoint_id`. */
  forkSession(id: string, body: ForkSessionBody): Promise<CreatedSession> {
    return this.#call("PUT", sessionPath(id), {
      body: { kind: "fork", ...body },
      headers: { "if-none-match": "*" },
    });
  }

  /** `PATCH /sessions/{id}`: another profile, model or model parameters from the next request on. */
  updateSettings(id: string, body: SessionSettingsBody): Promise<SessionSettings> {
    return this.#call("PATCH", sessionPath(id), { body });
  }

  /** `DELETE /sessions/{id}` (409 session_busy while a turn runs). */
  deleteSession(id: string): Promise<DeleteAnswer> {
    return this.#call("DELETE", sessionPath(id));
  }

  /** `PUT /sessions/{sid}/inputs/{iid}`: durable and idempotent (same id and body: same receipt). */
  putInput(sessionId: string, inputId: string, body: InputBody): Promise<InputReceipt> {
    return this.#call("PUT", `${sessionPath(sessionId)}/inputs/${encodeURIComponent(inputId)}`, { body });
  }

  /** `GET /sessions/{sid}/inputs/{iid}`. */
  getInput(sessionId: string, inputId: string): Promise<InputReceipt> {
    return this.#call("GET", `${sessionPath(sessionId)}/inputs/${encodeURIComponent(inputId)}`);
  }

  /** `POST /sessions/{sid}/inputs/{iid}/cancel`. */
  cancelInput(sessionId: string, inputId: string): Promise<CancelAnswer> {
    return this.#call("POST", `${sessionPath(sessionId)}/inputs/${encodeURIComponent(inputId)}/cancel`);
  }

  /** `POST /sessions/{sid}/interrupt`: stop turn `turnId` (the wire's `run_id`) and cancel queued inputs up to `throughInputOrder`. */
  interrupt(sessionId: string, turnId: string | null, throughInputOrder: number): Promise<InterruptAnswer> {
    return this.#call("POST", `${sessionPath(sessionId)}/interrupt`, {
      body: { run_id: turnId, through_input_order: throughInputOrder } satisfies InterruptBody,
    });
  }

  /**
   * `POST /sessions/{sid}/approvals/{call_id}`: answer a tool call that waits. The same decision
   * again returns the recorded one; another decision is a 409 `approval_conflict`.
   */
  answerApproval(sessionId: string, callId: string, body: ApprovalAnswerBody): Promise<ApprovalRecord> {
    return this.#call("POST", `${sessionPath(sessionId)}/approvals/${encodeURIComponent(callId)}`, { body });
  }

  /** `PUT /sessions/{sid}/approval-policy`: the session's own policy (null: config.json's applies). */
  setApprovalPolicy(sessionId: string, policy: ApprovalPolicy | null): Promise<ApprovalPolicyAnswer> {
    return this.#call("PUT", `${sessionPath(sessionId)}/approval-policy`, {
      body: { approval_policy: policy } satisfies ApprovalPolicyBody,
    });
  }

  /** `PUT /sessions/{sid}/approval-policy` with `{"mode"}`: the session's approval mode (its rules kept). */
  setApprovalMode(sessionId: string, mode: ApprovalMode): Promise<ApprovalPolicyAnswer> {
    return this.#call("PUT", `${sessionPath(sessionId)}/approval-policy`, {
      body: { mode } satisfies ApprovalPolicyBody,
    });
  }

  /**
   * `POST /sessions/{sid}/repair`: the items of log entries `from`..`to` (`to` defaults to
   * `from`) leave the model's context from the next request on.
   */
  repair(sessionId: string, from: number, to?: number): Promise<RepairAnswer> {
    const body = to === undefined ? { from_position: from } : { from_position: from, to_position: to };
    return this.#call("POST", `${sessionPath(sessionId)}/repair`, { body });
  }

  /** `POST /gc`: apply the retention policy now, or with `dryRun` only report what it would remove. */
  gc(dryRun: boolean): Promise<GcReport> {
    return this.#call("POST", "/gc", { body: { dry_run: dryRun } });
  }

  /** `POST /sessions/{sid}/compact`: start compacting the session's context (202; the stream tells the end). */
  compact(sessionId: string): Promise<CompactAnswer> {
    return this.#call("POST", `${sessionPath(sessionId)}/compact`);
  }

  /** `GET /sessions/{id}/history`: one page (the newest without a query). */
  history(sessionId: string, query: HistoryQuery = {}): Promise<HistoryPage> {
    const params = new URLSearchParams();
    if (query.limit !== undefined) params.set("limit", String(query.limit));
    if (query.next !== undefined) params.set("next", query.next);
    if (query.before !== undefined) params.set("before", String(query.before));
    if (query.after !== undefined) params.set("after", String(query.after));
    const suffix = params.size > 0 ? `?${params.toString()}` : "";
    return this.#call("GET", `${sessionPath(sessionId)}/history${suffix}`);
  }

  /** `GET /sessions/{id}/verify`: the whole chain, its recorded head and the head's signature checked. */
  verifySession(sessionId: string): Promise<VerifyReport> {
    return this.#call("GET", `${sessionPath(sessionId)}/verify`);
  }

  /** One slice of a truncated part's content: `ref` is the part's `ref`, `offset` a byte offset (start: 0). */
  contentSlice(ref: string, offset: number): Promise<ContentSlice> {
    if (!ref.startsWith("/sessions/")) throw new DaemonProtocolError("GET", ref, "not a content ref");
    return this.#call("GET", `${ref}&offset=${offset}`);
  }

  /** `POST /providers/{name}/test`: the daemon sends one tiny request to the profile's provider. */
  testProvider(name: string, body: ProviderTestBody = {}): Promise<ProviderTestAnswer> {
    const wait = (body.timeout_ms ?? 30_000) + 5_000;
    return this.#call("POST", `/providers/${encodeURIComponent(name)}/test`, { body, timeoutMs: wait });
  }

  /** Follow the session's event stream, resuming across reconnects (see session-stream.ts). */
  follow(sessionId: string, options: FollowOptions = {}): AsyncGenerator<StreamItem, void, undefined> {
    return followSession(this, sessionId, options);
  }

  /** Follow the session list (`GET /sessions` as a stream: a reset with the list, then created, updated, status and deleted events), resuming across reconnects. */
  followSessionList(options: FollowListOptions = {}): AsyncGenerator<SessionListItem, void, undefined> {
    return followSessionList(this, options);
  }

  /** Close idle keep-alive connections (call when done, so the process can exit at once). */
  close(): void {
    for (const agent of Object.values(this.agents)) agent.destroy();
  }

  async #call<T>(method: string, path: string, options: CallOptions = {}): Promise<T> {
    const answer = await this.#send(method, path, options);
    if (answer.status >= 400) throw apiErrorFrom(answer.status, answer.body, method, path);
    try {
      return JSON.parse(answer.body) as T;
    } catch {
      throw new DaemonProtocolError(method, path, `a ${answer.status} answer that is not JSON`);
    }
  }

  async #send(method: string, path: string, options: CallOptions): Promise<ExchangeAnswer> {
    const spec = { method, path, timeoutMs: options.timeoutMs ?? this.#timeoutMs, ...options };
    let endpoint = this.endpoint();
    try {
      const answer = await exchange(endpoint, this.agents, spec);
      if (answer.status !== 401 || !this.rediscover() || this.#endpoint === null) return answer;
      endpoint = this.#endpoint;
    } catch (error) {
      if (!isConnectionRefused(error)) throw error;
      if ((!this.rediscover() && !(await this.restartCrashed())) || this.#endpoint === null) {
        throw new DaemonUnreachableError(this.home, `nothing answers on 127.0.0.1:${endpoint.port}`, {
          cause: error,
        });
      }
      endpoint = this.#endpoint;
    }
    try {
      return await exchange(endpoint, this.agents, spec);
    } catch (error) {
      if (!isConnectionRefused(error)) throw error;
      throw new DaemonUnreachableError(this.home, `nothing answers on 127.0.0.1:${endpoint.port}`, {
        cause: error,
      });
    }
  }
}

function sessionPath(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}
