/**
 * What the `task` tool works with, handed in by the daemon's wiring (boot/delegation-of.ts):
 * the registry its children live in, storage to look at them, the hub and the limits.
 */
import type { AgentDefinition } from "../../home/agent-definition.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import type { SessionLogger } from "../session/session-services.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { SessionRow } from "../storage/sessions-table.js";
import type { TaskContext } from "./task-arguments.js";
import type { TaskHub } from "./task-hub.js";
import type { TaskLimits } from "./task-limits.js";

/** config.json's delegation settings, as they are now. */
interface DelegationSettings {
  agents: Readonly<Record<string, AgentDefinition>> | undefined;
  maxParallelTasks: number;
  maxTaskDepth: number;
}

/** The child session a `task` call asks for. */
export interface ChildRequest {
  id: string;
  parent: SessionRow;
  callId: string;
  agentName: string;
  agent: AgentDefinition;
  context: TaskContext;
  prompt: string;
}

export interface TaskServices {
  registry: SessionRegistry;
  storage: SessionStorage;
  hub: TaskHub;
  limits: TaskLimits;
  settings(): DelegationSettings;
  /** Create the child session; throws SessionExistsError when it exists already. */
  createChild(request: ChildRequest): Promise<void>;
  logger: SessionLogger;
  /**
   * Interrupt a session another live node owns, on that node (true once it accepted); false when
   * no other node owns it (a single daemon always answers false).
   */
  interruptElsewhere(sessionId: string, runId: string | null, throughInputOrder: number): Promise<boolean>;
  /** The longest a waiting call goes without looking at its child in the database. */
  pollMs: number;
}

/** Defaults of config.json's `maxParallelTasks` and `maxTaskDepth`. */
export const delegationDefaults = { maxParallelTasks: 4, maxTaskDepth: 1 } as const;
