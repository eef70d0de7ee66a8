/**
 * What a new session is made of: its row and its first log entries, for a session created from
 * nothing (`session_start`, then its own approval policy if it has one) or forked from another
 * at a history checkpoint (fork-plan.ts). The registry (session-registry.ts) writes them in one
 * transaction.
 */
import type { InputReceipt } from "../../api/inputs.js";
import type { CreateSessionBody } from "../../api/session-creation.js";
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import type { LogEntry, PositionedEntry, SessionInstructions } from "../../log/entries.js";
import type { ApprovalMode, ApprovalPolicy } from "../../model/approval-policy.js";
import type { RequestConfig } from "../../model/request-config.js";
import { planFork } from "../session/fork-plan.js";
import type { ChildTask, NewSession, SessionRow } from "../storage/sessions-table.js";
import type { FirstInputRequest } from "./first-input.js";
import type { SessionActor } from "./session-actor.js";

/** What `PUT /sessions/{id}` with kind "new" asks for, after validation and defaults. */
export interface NewSessionRequest {
  id: string;
  workspace: string;
  name: string | null;
  providerProfile: string | null;
  model: string | null;
  systemPrompt: string | null;
  /** The MCP servers whose tools the agent gets (default: none). */
  mcpServers?: readonly string[];
  /** The project instructions appended to `systemPrompt`, recorded in the session_start entry. */
  instructions?: SessionInstructions | null;
  /** The session's own model parameters (default: none, the profile's). */
  requestConfig?: RequestConfig;
  /** The session's own approval policy, logged right after its session_start. */
  approvalPolicy?: ApprovalPolicy | null;
  /** The creation request as accepted, kept for snapshots (`creation.submitted`). */
  creationRequest?: CreateSessionBody;
  /** The session's approval mode from the start (default: `ask`), logged with its policy. */
  approvalMode?: ApprovalMode;
  /** A `task` call's child: its parent session, the call and the agent. */
  child?: { parentId: string } & ChildTask;
  /** Its first input, admitted with it (first-input.ts). */
  firstInput?: FirstInputRequest;
}

/** What `PUT /sessions/{id}` with kind "fork" asks for. */
export interface ForkSessionRequest {
  id: string;
  sourceSessionId: string;
  checkpointId: string;
  name: string | null;
  /** The creation request as accepted, kept for snapshots (`creation.submitted`). */
  creationRequest?: CreateSessionBody;
  /** A `task` call's child forked from its parent (the source). */
  task?: ChildTask;
  /**
   * A task child's own provider, model and approval mode (its agent's), instead of the
   * source's: the mode is logged after the copied entries with no session policy of its own
   * (the configured one applies), as for a child created new.
   */
  agentSettings?: { providerProfile: string | null; model: string | null; approvalMode: ApprovalMode };
}

/** A session just created: its actor, and the snapshot its creation answers with (asked for at once). */
export interface CreatedActor {
  actor: SessionActor;
  snapshot(): Promise<SessionSnapshot>;
  /** The receipt of its first input, when its creation had one (asked for after the snapshot). */
  firstInput?: () => Promise<InputReceipt>;
}

/** A new session's row and whole first log, first entry (a session_start) first. */
export interface SessionRecord {
  row: NewSession;
  entries: LogEntry[];
}

/** The row and first entries of the session `request` creates, at `now`. */
export function newSessionRecord(request: NewSessionRequest, now: number): SessionRecord {
  const row: NewSession = {
    id: request.id,
    name: request.name,
    workspace: request.workspace,
    providerProfile: request.providerProfile,
    model: request.model,
    systemPrompt: request.systemPrompt,
    createdAt: now,
    mcpServers: request.mcpServers ?? [],
    ...(request.creationRequest === undefined ? {} : { creationRequest: request.creationRequest }),
    ...(request.child === undefined
      ? {}
      : {
          parentId: request.child.parentId,
          task: { parentCallId: request.child.parentCallId, agent: request.child.agent },
        }),
  };
  const start: LogEntry = {
    kind: "session_start",
    ts: now,
    system_prompt: request.systemPrompt,
    config: request.requestConfig ?? {},
    history: [],
    ...(request.instructions == null ? {} : { instructions: request.instructions }),
  };
  const policy: LogEntry[] =
    request.approvalPolicy == null && request.approvalMode === undefined
      ? []
      : [
          {
            kind: "approval_policy_changed",
            ts: now,
            policy: request.approvalPolicy ?? null,
            ...(request.approvalMode === undefined ? {} : { mode: request.approvalMode }),
          },
        ];
  return { row, entries: [start, ...policy] };
}

/**
 * The row and first entries of the fork `request` asks for, of `source` whose verified log is
 * `entries` (same workspace, provider, model), at `now`.
 */
export function forkRecord(
  request: ForkSessionRequest,
  source: SessionRow,
  entries: readonly PositionedEntry[],
  now: number,
): SessionRecord {
  const plan = planFork(entries, request.sourceSessionId, request.checkpointId, now);
  const own = request.agentSettings;
  const row: NewSession = {
    id: request.id,
    name: request.name ?? source.name,
    workspace: source.workspace,
    parentId: source.id,
    providerProfile: own === undefined ? source.providerProfile : own.providerProfile,
    model: own === undefined ? source.model : own.model,
    systemPrompt: plan.systemPrompt,
    createdAt: now,
    fork: { checkpointId: request.checkpointId, entryHash: plan.origin.entry_hash },
    mcpServers: source.mcpServers,
    ...(request.creationRequest === undefined ? {} : { creationRequest: request.creationRequest }),
    ...(request.task === undefined ? {} : { task: request.task }),
  };
  if (own === undefined) return { row, entries: plan.entries };
  const mode: LogEntry = { kind: "approval_policy_changed", ts: now, policy: null, mode: own.approvalMode };
  return { row, entries: [...plan.entries, mode] };
}
