/**
 * Where a local MCP server may write, and what it may not see, when it runs in the daemon's
 * sandbox: the host read-only but for the user's home (package caches: `npx`, `uvx`), /tmp, the
 * server's cwd and the workspace it runs for; the daemon's home and database covered (so its
 * token, API keys and every session stay out of reach, wherever they lie); no Unix socket can
 * be made (so no host service's socket is reachable); private /run; the network as its config
 * says (default on: many servers fetch).
 *
 * Boundary rule: pure decisions over real paths; the transport runs bwrap.
 */
import { existsSync } from "node:fs";
import { isAbsolute } from "node:path";
import type { ResolvedServer } from "../api/mcp-config.js";
import type { ProgramSandbox } from "../tools/bubblewrap.js";
import { type HiddenPaths, hiddenPathCovering, realPathOf } from "../tools/hidden-paths.js";
import type { SocketFilter } from "../tools/socket-filter.js";

/** The daemon's sandbox, as MCP servers get it (null where bubblewrap does not work). */
export interface McpSandbox {
  bwrapPath: string;
  filter: SocketFilter;
  hidden: HiddenPaths;
}

/** How one stdio server is started: under bwrap with these confines, or unconfined (null). */
export type ServerConfinement = { bwrapPath: string; program: ProgramSandbox } | null;

/**
 * The confinement of `server` (started with environment `env`, in `daemonCwd` when it names no
 * cwd): null when the daemon has no sandbox or the server's config says `"sandbox": false`.
 */
export function serverConfinement(
  server: Extract<ResolvedServer, { transport: "stdio" }>,
  sandbox: McpSandbox | null,
  env: Record<string, string>,
  daemonCwd: string,
): ServerConfinement {
  if (sandbox === null || !server.sandbox) return null;
  const writable: string[] = [];
  // /tmp is shared with the host, not private as for commands: a server's own program may live
  // there (an unpacked package, a checkout), and what must stay hidden is covered after it.
  for (const candidate of [env.HOME, server.cwd, server.workspace, "/tmp"]) {
    if (candidate === undefined || candidate === null || !isAbsolute(candidate) || !existsSync(candidate))
      continue;
    const real = realPathOf(candidate);
    // A directory inside the daemon's home stays hidden: never writable, whatever the config says.
    if (hiddenPathCovering(sandbox.hidden, real) === undefined) writable.push(real);
  }
  return {
    bwrapPath: sandbox.bwrapPath,
    program: {
      writable,
      hidden: sandbox.hidden,
      filter: sandbox.filter,
      network: server.network,
      cwd: realPathOf(server.cwd ?? daemonCwd),
    },
  };
}
