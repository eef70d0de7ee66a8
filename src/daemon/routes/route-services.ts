/** What the routes need from the daemon, passed in by daemon.ts. */
import type { ShellInfo } from "../../api/server.js";
import type { ProbeOutcome } from "../../providers/profile-probe.js";
import type { ProviderProfile } from "../../providers/provider-profile.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import type { SessionRetention } from "../actor/session-retention.js";
import type { ApiKeySource } from "../process/api-key-lookup.js";
import type { NamedProfile } from "../process/provider-config.js";
import type { ProjectInstructions } from "../session/project-instructions.js";
import type { SessionStorage } from "../storage/session-storage.js";
import type { Tracing } from "../telemetry/tracing.js";

/** The provider a new session gets: the named profile (or the active one) and its model. */
interface ProviderDefaults {
  name: string | null;
  model: string | null;
}

/** Where an API key was found, and every place looked at. */
interface ApiKeyReport {
  source: ApiKeySource | null;
  looked: string[];
}

export interface RouteServices {
  registry: SessionRegistry;
  /** `POST /gc`: the daemon's retention. */
  retention: SessionRetention;
  storage: SessionStorage;
  historySecret: string;
  /** How sessions' run_command runs (`GET /server`'s `shell`; a new session's 201 says it too). */
  shell: ShellInfo;
  now(): number;
  /** Defaults for a new session; throws a 400 problem for a profile that is not configured. */
  providerDefaults(profileName: string | null): ProviderDefaults;
  /** The configured profile of this name; throws NoProviderError. */
  resolveProfile(profileName: string): NamedProfile;
  /** Where the daemon finds the API key of profile `name` (never the key itself). */
  lookUpApiKey(name: string, profile: ProviderProfile): ApiKeyReport;
  /** One tiny request to the provider of profile `name`, with the key the daemon finds for it. */
  probeProvider(name: string, profile: ProviderProfile, timeoutMs: number): Promise<ProbeOutcome>;
  /** The system prompt of a session created without one. */
  defaultSystemPrompt(workspace: string): string;
  /** Why the tools would refuse this workspace (e.g. it lies inside the daemon's home), or null. */
  workspaceProblem(workspace: string): string | null;
  /** The AGENTS.md (or CLAUDE.md) a new session in this workspace gets, or null. */
  projectInstructions(workspace: string): ProjectInstructions | null;
  /** The names of the MCP servers in config.json (a new session uses them all unless it names some). */
  mcpServerNames(): string[];
  /** The daemon's tracing (absent: no trace is exported): each input's admission gets a span. */
  tracing?: Tracing;
  /** SSE connections: their tuning (tests shorten the keepalive), and who counts their bytes (the metrics). */
  streamOptions?: { keepaliveMs?: number; countBytes?: (bytes: number) => void };
}
