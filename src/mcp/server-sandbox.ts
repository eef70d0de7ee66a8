/**
 * Where a local MCP server may write, what it may read, and what network it gets, when it runs
 * in the daemon's sandbox: the host read-only; writable only its own directory
 * (`<stateRoot>/<server name>`, 0700, its HOME inside the sandbox, where `npx`/`uvx` caches go),
 * its cwd, the workspace it runs for and a private /tmp; the host's /tmp and /run hidden like
 * for commands, but for the projects holding what its command, args and cwd name there, shown
 * read-only (program-directories.ts: a server checked out under /tmp, or run through a loader
 * given as a `file://` URL); the daemon's home and database covered (so its token, API keys and
 * every session stay out of reach, wherever they lie); no Unix socket can be made (so no host
 * service's socket is reachable); the network as its config says (default on: many servers
 * fetch), outbound-only with no route to the host's own addresses (tools/sandbox-network.ts),
 * never the host's.
 *
 * Boundary rule: decisions over real paths, and the server's own directory made when a server
 * starts; the transport runs bwrap.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync } from "node:fs";
import path, { isAbsolute } from "node:path";
import type { ResolvedServer } from "../home/mcp-config.js";
import type { ProgramSandbox } from "../tools/bubblewrap.js";
import { type HiddenPaths, hiddenPathCovering, realPathOf } from "../tools/hidden-paths.js";
import { NETWORK_HELPER_INSTALL_HINT, type NetworkHelperProbe } from "../tools/network-helper.js";
import { privateDirectories } from "../tools/sandbox-mounts.js";
import type { SocketFilter } from "../tools/socket-filter.js";
import { programDirectories } from "./program-directories.js";

/** The daemon's sandbox, as MCP servers get it (null where bubblewrap does not work). */
export interface McpSandbox {
  bwrapPath: string;
  filter: SocketFilter;
  hidden: HiddenPaths;
  /** The directory holding each server's own directory (`$SKEIN_HOME/mcp`). */
  stateRoot: string;
  /** The outbound-only network's helper programs, or why they are missing. */
  network: NetworkHelperProbe;
}

/**
 * How one stdio server is started: under bwrap with these confines and these variables set over
 * the inherited ones (its config's `env` still wins), or unconfined (null).
 */
export type ServerConfinement = {
  bwrapPath: string;
  program: ProgramSandbox;
  environment: Record<string, string>;
} | null;

/** Where a sandboxed server's own directory is mounted, as its HOME, on a private tmpfs. */
export const SANDBOX_HOME_PATHS = { run: "/run/skein-mcp-home", tmp: "/tmp/skein-mcp-home" } as const;

/** A server the sandbox cannot start as configured. */
export class ServerSandboxError extends Error {
  constructor(
    readonly server: string,
    message: string,
  ) {
    super(message);
    this.name = "ServerSandboxError";
  }
}

/**
 * The confinement of `server` (started in its own directory when it names no cwd): null when
 * the daemon has no sandbox or the server's config says `"sandbox": false`. Makes the server's
 * own directory; throws `ServerSandboxError` when the network is asked for and cannot be given.
 */
export function serverConfinement(
  server: Extract<ResolvedServer, { transport: "stdio" }>,
  sandbox: McpSandbox | null,
): ServerConfinement {
  if (sandbox === null || !server.sandbox) return null;
  const network = server.network ? networkHelper(server.name, sandbox.network) : null;
  const privates = privateDirectories();
  const writable: string[] = [];
  // As configured too: a path named under a writable directory is recognised before it is resolved.
  const writableNames: string[] = [];
  for (const candidate of [server.cwd, server.workspace]) {
    if (candidate === null || !isAbsolute(candidate) || !existsSync(candidate)) continue;
    const real = realPathOf(candidate);
    // A directory inside the daemon's home stays hidden: never writable, whatever the config says.
    if (hiddenPathCovering(sandbox.hidden, real) !== undefined) continue;
    if (!writable.includes(real)) writable.push(real);
    writableNames.push(path.resolve(candidate), real);
  }
  const home = serverDirectory(sandbox.stateRoot, server.name);
  const sandboxHome = privates.includes(realPathOf("/run")) ? SANDBOX_HOME_PATHS.run : SANDBOX_HOME_PATHS.tmp;
  return {
    bwrapPath: sandbox.bwrapPath,
    program: {
      writable,
      readable: programDirectories({
        words: [server.command, ...server.args, ...(server.cwd === null ? [] : [server.cwd])],
        writable: writableNames,
        privates,
        hidden: sandbox.hidden,
      }),
      home: { hostPath: home, sandboxPath: sandboxHome },
      hidden: sandbox.hidden,
      filter: sandbox.filter,
      network,
      // The daemon's cwd may be hidden (its home) or under the private /tmp: its own directory instead.
      cwd: server.cwd === null ? sandboxHome : realPathOf(server.cwd),
    },
    environment: { HOME: sandboxHome, TMPDIR: "/tmp" },
  };
}

function networkHelper(server: string, probe: NetworkHelperProbe) {
  if (probe.usable) return probe.helper;
  throw new ServerSandboxError(
    server,
    `the sandbox cannot give this server a network (${probe.reason}); ` +
      `set "network": false in its entry if it needs none, or ${NETWORK_HELPER_INSTALL_HINT}`,
  );
}

/** Makes `<root>/<name>` (0700, the root too) and returns it; refuses anything but a directory there. */
function serverDirectory(root: string, name: string): string {
  const directory = path.join(root, name);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  for (const made of [root, directory]) {
    if (!lstatSync(made).isDirectory()) {
      throw new ServerSandboxError(
        name,
        `${made} is not a directory; the server's own directory must be one`,
      );
    }
    chmodSync(made, 0o700);
  }
  return directory;
}
