/**
 * The daemon's delegation: the `task` tool's services (registry, storage, hub, limits,
 * config.json's agents and limits) and how a child session is made: in the parent's workspace,
 * with the daemon's default system prompt, the workspace's instructions and the agent's prompt,
 * the agent's profile and model (else the parent's), the parent's MCP servers, the agent's mode;
 * a fork child likewise takes its agent's profile, model and mode (its log is the parent's).
 */

import type { NewSessionRequest } from "../actor/session-creation.js";
import { interruptOnOwner } from "../cluster/owner-interrupt.js";
import { TaskWakeUps } from "../cluster/task-wake-ups.js";
import { findProjectInstructions, withInstructions } from "../session/project-instructions.js";
import type { Delegation, SessionEventObserver } from "../session/session-services.js";
import { PgSessionStorage } from "../storage/pg-session-storage.js";
import { delegationOf } from "../task/delegation.js";
import { TaskHub } from "../task/task-hub.js";
import { TaskLimits } from "../task/task-limits.js";
import type { ChildRequest, TaskServices } from "../task/task-services.js";
import { delegationDefaults } from "../task/task-services.js";
import { type DaemonParts, defaultSystemPrompt } from "./daemon-services.js";
import type { RegistryHolder } from "./join-cluster.js";
import { taskForkPoint } from "./task-fork-point.js";

/** The delegation sessions get and the hub the daemon's event observer feeds. */
export function delegationParts(
  parts: DaemonParts,
  registry: RegistryHolder,
): { delegation: Delegation; hub: TaskHub } {
  const hub = new TaskHub();
  const limits = new TaskLimits();
  const services: TaskServices = {
    get registry() {
      // Sessions run turns only once the registry exists.
      if (registry.current === null) throw new Error("the session registry is not built yet");
      return registry.current;
    },
    storage: parts.storage,
    hub,
    limits,
    logger: parts.logger,
    pollMs: 500,
    interruptElsewhere: async (sessionId, runId, through) =>
      parts.cluster !== null &&
      (await interruptOnOwner(parts.cluster, parts.settings.token, sessionId, {
        run_id: runId,
        through_input_order: through,
      })),
    settings: () => {
      const config = parts.providers.current();
      return {
        agents: config.agents,
        maxParallelTasks: config.maxParallelTasks ?? delegationDefaults.maxParallelTasks,
        maxTaskDepth: config.maxTaskDepth ?? delegationDefaults.maxTaskDepth,
      };
    },
    createChild: async (request) => {
      const sessions = registry.current;
      if (sessions === null) throw new Error("the session registry is not built yet");
      if (request.context === "fresh") {
        await sessions.create(childSession(parts, request));
        return;
      }
      const checkpointId = taskForkPoint(await sessions.readLog(request.parent.id), request.callId);
      if (checkpointId === null) throw new Error(`call ${request.callId} has no history to fork before it`);
      await sessions.fork({
        id: request.id,
        sourceSessionId: request.parent.id,
        checkpointId,
        name: childName(request),
        task: { parentCallId: request.callId, agent: request.agentName },
        agentSettings: { ...agentProvider(parts, request), approvalMode: request.agent.mode ?? "ask" },
      });
    },
  };
  return { delegation: delegationOf(services), hub };
}

/**
 * On a cluster, the wake-ups of waiting `task` calls across nodes, heard on the node's wake-up
 * connection (null on SQLite): announce each turn end and approval change through it, and the
 * hub hears of other nodes'.
 */
export async function taskWakeUpsOf(parts: DaemonParts, hub: TaskHub): Promise<TaskWakeUps | null> {
  const { storage } = parts;
  if (!(storage instanceof PgSessionStorage) || parts.wakeUps === null) return null;
  const taskWakeUps = new TaskWakeUps(storage.pool, {
    turnEnded: (sessionId) => hub.wake(sessionId),
    approvalsChanged: (sessionId) => hub.approvalsChanged(sessionId),
  });
  await taskWakeUps.start(parts.wakeUps);
  return taskWakeUps;
}

/**
 * The daemon's session event observer for tasks: the hub hears every event; on a cluster each
 * turn end and each approval change of a session is announced to the other nodes, where a
 * parent may wait on it (a relayed copy, with `session_id`, is a child's: not announced again).
 */
export function taskObserver(hub: TaskHub, wakeUps: TaskWakeUps | null): SessionEventObserver {
  return (sessionId, type, data) => {
    hub.observe(sessionId, type, data);
    if (wakeUps === null) return;
    if (type === "turn_completed") wakeUps.announce(sessionId);
    const approval = type === "approval_requested" || type === "approval_resolved";
    if (approval && (data as { session_id?: string }).session_id === undefined)
      wakeUps.announceApprovals(sessionId);
  };
}

/** The new session a `task` call's child is. */
function childSession(parts: DaemonParts, request: ChildRequest): NewSessionRequest {
  const { parent, agent } = request;
  const base = `${defaultSystemPrompt(parent.workspace)}\n\n${agent.prompt}`;
  const instructions = findProjectInstructions(parent.workspace, { hidden: parts.tooling.toolKit.hidden });
  return {
    id: request.id,
    workspace: parent.workspace,
    name: childName(request),
    ...agentProvider(parts, request),
    systemPrompt: instructions === null ? base : withInstructions(base, instructions),
    mcpServers: parent.mcpServers,
    instructions:
      instructions === null
        ? null
        : { path: instructions.path, bytes: instructions.bytes, truncated: instructions.truncated },
    ...(agent.mode === undefined ? {} : { approvalMode: agent.mode }),
    child: { parentId: parent.id, parentCallId: request.callId, agent: request.agentName },
  };
}

/** The child's profile and model: its agent's, else its parent's. */
function agentProvider(
  parts: DaemonParts,
  request: ChildRequest,
): { providerProfile: string | null; model: string | null } {
  const { parent, agent } = request;
  // An agent's profile must exist now (its model defaults to that profile's).
  const profile = agent.profile === undefined ? null : parts.providers.resolveProfile(agent.profile);
  return {
    providerProfile: profile?.name ?? parent.providerProfile,
    model: agent.model ?? (profile === null ? parent.model : profile.profile.model),
  };
}

/** A child's name: its agent and the start of its task. */
function childName(request: ChildRequest): string {
  return `${request.agentName}: ${request.prompt.replace(/\s+/g, " ").trim().slice(0, 60)}`;
}
