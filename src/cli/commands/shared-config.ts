/**
 * `skein config add|remove|use|list` when the home's daemon runs on PostgreSQL: the profiles
 * then live in the cluster's shared config, changed through the daemon's HTTP API (`PUT`/`DELETE
 * /config/…`), so every node has a change within a second, without a restart. The CLI knows from
 * daemon.json (`config_source: "database"`) or from `SKEIN_DB` in its own environment, and
 * `GET /config` has the last word.
 *
 * Boundary rule: the daemon checks every change exactly as config.json is checked; this file
 * only turns commands into changes and answers into lines. API keys never go to the database.
 */
import type { ConfigView } from "../../api/config.js";
import { DaemonApiError } from "../../client/api-errors.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { readDiscoveryFile } from "../../home/discovery-file.js";
import type { ProviderProfile } from "../../home/provider-config.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";

/** The daemon that holds the shared config, and its config as of now. */
export interface SharedConfig {
  client: DaemonClient;
  view: ConfigView;
}

/** The shared config when the home's daemon runs on PostgreSQL, else null (config.json is the config). */
export async function sharedConfigOf(context: CliContext): Promise<SharedConfig | null> {
  let saysDatabase = false;
  try {
    saysDatabase = readDiscoveryFile(context.home)?.config_source === "database";
  } catch {
    // A broken daemon.json says nothing; connecting below reports what is wrong if it matters.
  }
  const onPostgres = /^postgres(ql)?:\/\//.test(context.env.SKEIN_DB ?? "");
  if (!saysDatabase && !onPostgres) return null;
  const client = await connect(context);
  const view = await client.config();
  if (view.source === "database") return { client, view };
  client.close();
  return null;
}

/** `skein config add` into the shared config (made active with `use`, or when none is). */
export async function addSharedProfile(
  context: CliContext,
  shared: SharedConfig,
  name: string,
  profile: ProviderProfile,
  use: boolean,
): Promise<ExitCode> {
  if (profile.apiKey !== undefined) {
    throw new CliError(
      "API keys are never stored in the cluster's database",
      exitCodes.usage,
      `give --api-key-env VAR (set on every node), or store the key on each node with \`skein auth set ${name}\``,
    );
  }
  const replaced = shared.view.providers[name]?.shared === true;
  let view = await change(shared, "profiles", name, profile);
  if (use || view.active === null) view = await change(shared, "settings", "active", name);
  const out = context.terminal.out;
  writeLine(
    out,
    `${replaced ? "replaced" : "added"} provider profile "${name}" (${profile.protocol}, ${profile.model} at ${profile.baseUrl}) in the cluster config (version ${view.version}): every node uses it`,
  );
  if (view.active === name) writeLine(out, `"${name}" is the active profile: new sessions use it`);
  if (profile.apiKeyEnv !== undefined)
    writeLine(
      out,
      out.paint.dim(`each node reads the key from its own $${profile.apiKeyEnv} or \`skein auth set\``),
    );
  return exitCodes.ok;
}

/** `skein config remove` of a shared profile (the shared active setting goes with it). */
export async function removeSharedProfile(
  context: CliContext,
  shared: SharedConfig,
  name: string,
): Promise<ExitCode> {
  const activeEntry = shared.view.shared_entries.some(
    (entry) => entry.section === "settings" && entry.name === "active",
  );
  if (activeEntry && shared.view.active === name) await change(shared, "settings", "active");
  const view = await change(shared, "profiles", name);
  writeLine(
    context.terminal.out,
    `removed provider profile "${name}" from the cluster config (version ${view.version})`,
  );
  if (shared.view.active === name && view.active !== name) {
    const now = view.active === null ? "no profile is active now" : `"${view.active}" is active now`;
    writeLine(context.terminal.out, `${now}; choose one with \`skein config use NAME\``);
  }
  return exitCodes.ok;
}

/** `skein config use` of a shared profile. */
export async function activateSharedProfile(
  context: CliContext,
  shared: SharedConfig,
  name: string,
): Promise<ExitCode> {
  const known = shared.view.providers[name];
  if (known === undefined) {
    const names = Object.keys(shared.view.providers);
    throw new CliError(
      `no provider profile named "${name}"${names.length > 0 ? ` (configured: ${names.join(", ")})` : ""}`,
      exitCodes.notFound,
    );
  }
  if (!known.shared) {
    throw new CliError(
      `provider profile "${name}" is only in this node's config.json; the cluster's active profile must be one every node has`,
      exitCodes.usage,
      "add it to the cluster config with `skein config add` (on a node of the cluster)",
    );
  }
  const view = await change(shared, "settings", "active", name);
  writeLine(
    context.terminal.out,
    `"${name}" is now the active provider profile of the cluster (version ${view.version})`,
  );
  return exitCodes.ok;
}

/** `skein mcp add|remove` on the shared config: the entry as config.json would hold it, or undefined to remove. */
export async function changeSharedMcpServer(
  context: CliContext,
  shared: SharedConfig,
  name: string,
  entry: Record<string, unknown> | undefined,
): Promise<ExitCode> {
  const replaced = shared.view.shared_entries.some(
    (known) => known.section === "mcpServers" && known.name === name,
  );
  if (entry === undefined && !replaced)
    throw new CliError(`the cluster config has no MCP server named "${name}"`, exitCodes.notFound);
  const view = await change(shared, "mcp-servers", name, entry);
  const what = entry === undefined ? "removed" : replaced ? "replaced" : "added";
  writeLine(
    context.terminal.out,
    `${what} MCP server "${name}" ${entry === undefined ? "from" : "in"} the cluster config (version ${view.version}): every node's new sessions ${entry === undefined ? "no longer use it" : "use it"}`,
  );
  return exitCodes.ok;
}

/** One change through the daemon; a change it refuses is a usage error with its reason. */
async function change(
  shared: SharedConfig,
  kind: "profiles" | "mcp-servers" | "settings",
  name: string,
  value?: unknown,
): Promise<ConfigView> {
  try {
    return await shared.client.changeConfig(kind, name, value);
  } catch (error) {
    if (error instanceof DaemonApiError && error.status === 400)
      throw new CliError(error.detail, exitCodes.usage);
    throw error;
  }
}
