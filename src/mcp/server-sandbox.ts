/**
 * Where a local MCP server may write, what it may read, and what network it gets, when it runs
 * in the daemon's sandbox: the host read-only; writable only its own directory
 * (`<stateRoot>/<server name>`, 0700, its HOME inside the sandbox, where `npx`/`uvx` caches go),
 * its cwd, the workspace it runs for and a private /tmp; the host's /tmp and /run hidden like
 * for commands (but for the directories holding the program its command and args name there);
 * the daemon's home and database covered (so its token, API keys and every session stay out of
 * reach, wherever they lie); no Unix socket can be made (so no host service's socket is
 * reachable); the network as its config says (default on: many servers fetch), outbound-only
 * with no route to the host's own addresses (tools/sandbox-network.ts), never the host's.
 *
 * Boundary rule: decisions over real paths, and the server's own directory made when a server
 * starts; the transport runs bwrap.
 */
import { chmodSync, existsSync, lstatSync, mkdirSync, statSync } from "node:fs";
import path, { isAbsolute } from "node:path";
import type { ResolvedServer } from "../api/mcp-config.js";
import type { ProgramSandbox } from "../tools/bubblewrap.js";
import { type HiddenPaths, hiddenPathCovering, realPathOf } from "../tools/hidden-paths.js";
import { NETWORK_HELPER_INSTALL_HINT, type NetworkHelperProbe } from "../tools/network-helper.js";
import { isInsideDirectory } from "../tools/path-containment.js";
import { privateDirectories } from "../tools/sandbox-mounts.js";
import type { SocketFilter } from "../tools/socket-filter.js";

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
  for (const candidate of [server.cwd, server.workspace]) {
    if (candidate === null || !isAbsolute(candidate) || !existsSync(candidate)) continue;
    const real = realPathOf(candidate);
    // A directory inside the daemon's home stays hidden: never writable, whatever the config says.
    if (hiddenPathCovering(sandbox.hidden, real) === undefined && !writable.includes(real))
      writable.push(real);
  }
  const home = serverDirectory(sandbox.stateRoot, server.name);
  const sandboxHome = privates.includes(realPathOf("/run")) ? SANDBOX_HOME_PATHS.run : SANDBOX_HOME_PATHS.tmp;
  return {
    bwrapPath: sandbox.bwrapPath,
    program: {
      writable,
      readable: programPaths([server.command, ...server.args], privates),
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

/**
 * What the private directories would hide of the program a server runs: for each absolute,
 * existing path among `words` that lies inside one, its directory (the path itself when it is a
 * directory, or when its directory is the private directory itself).
 */
export function programPaths(words: readonly string[], privates: readonly string[]): string[] {
  const found = new Set<string>();
  for (const word of words) {
    if (!isAbsolute(word) || word.includes("\0") || !existsSync(word)) continue;
    const real = realPathOf(word);
    const holder = privates.find((directory) => directory !== real && isInsideDirectory(directory, real));
    if (holder === undefined) continue;
    const directory = statSync(real).isDirectory() ? real : path.dirname(real);
    found.add(directory === holder ? real : directory);
  }
  return [...found];
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
