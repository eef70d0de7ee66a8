/**
 * The bubblewrap (`bwrap`) sandbox that `run_command` runs inside, and a check that it works.
 *
 * Boundary rule: the only writable places a sandboxed command sees are the workspace and private
 * tmpfs mounts (see sandbox-mounts.ts); the rest of the filesystem is read-only and hidden paths
 * are covered; it always has its own network namespace (which also confines abstract Unix
 * sockets): empty, or with the outbound-only network of sandbox-network.ts, which bwrap waits
 * for (`--block-fd`) before it starts the command; a seccomp filter keeps it from creating Unix sockets at all (see
 * socket-filter.ts), so a host service's socket file it can still see stays out of reach; the
 * command is in its own PID namespace (all of it dies when bwrap dies) and holds no
 * capabilities, so even when the daemon runs as root the command cannot remount the read-only
 * tree.
 */
import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { HiddenPaths } from "./hidden-paths.js";
import type { HostNetworkView, NetworkHelper } from "./network-helper.js";
import { baseMountArguments, workspaceMountArguments, writableMountArguments } from "./sandbox-mounts.js";
import { type SocketFilter, socketFilterFor } from "./socket-filter.js";
import { errorMessage } from "./system-error.js";

/** Where Debian's `bubblewrap` package installs bwrap. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";

/** The PATH a command sees (sandboxed or not). */
export const COMMAND_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The descriptor number bwrap reads the seccomp program from (the first after stdio). */
export const SECCOMP_DESCRIPTOR = 3;

/** The descriptor bwrap writes the sandbox's pid to (`--info-fd`), when it gets a network. */
export const INFO_DESCRIPTOR = 4;

/**
 * The descriptor bwrap waits on, when the sandbox gets a network: before it starts the program
 * (`--block-fd`), or, for a daemon not run as root, right after making the namespaces
 * (`--userns-block-fd`; see sandbox-user-namespace.ts).
 */
export const BLOCK_DESCRIPTOR = 5;

/** The descriptor bwrap reads the sandbox's resolv.conf from (`--ro-bind-data`), when it gets a network. */
export const RESOLV_CONF_DESCRIPTOR = 6;

/** The whole environment a command gets: nothing of the daemon's own environment leaks in. */
export function commandEnvironment(realWorkspace: string): Record<string, string> {
  return { PATH: COMMAND_PATH, HOME: realWorkspace, LANG: "C.UTF-8" };
}

/**
 * The process options: with `network`, bwrap reports the sandbox's pid and waits before it runs
 * the program, so the outbound network is attached first (network-helper.ts), and the sandbox
 * gets its own resolv.conf. For a daemon not run as root, bwrap waits as soon as it has made the
 * namespaces, in a user namespace the daemon maps (sandbox-user-namespace.ts).
 */
function processArguments(filter: SocketFilter, network: HostNetworkView | null = null): string[] {
  return [
    // Never the host's network namespace: the sandbox would reach every service on the host.
    "--unshare-net",
    ...(network === null
      ? []
      : [
          ...["--info-fd", String(INFO_DESCRIPTOR)],
          ...(network.userNamespace === null
            ? ["--block-fd", String(BLOCK_DESCRIPTOR)]
            : ["--unshare-user", "--userns-block-fd", String(BLOCK_DESCRIPTOR)]),
          ...(network.resolvConf === null
            ? []
            : ["--ro-bind-data", String(RESOLV_CONF_DESCRIPTOR), network.resolvConf.target]),
        ]),
    // --cap-drop ALL matters when the daemon is root: with capabilities the command could remount / rw.
    ...["--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"],
    ...(filter.kind === "filter" ? ["--seccomp", String(SECCOMP_DESCRIPTOR)] : []),
  ];
}

/**
 * The bwrap arguments that run `sh -c command` confined to `realWorkspace` (a real, absolute
 * path outside every hidden path), with the hidden paths covered and, when `filter` has a
 * program, the seccomp filter read from descriptor `SECCOMP_DESCRIPTOR`; with `network`, the
 * outbound-only network (started by `spawnSandbox`) instead of none.
 */
export function sandboxArguments(
  realWorkspace: string,
  command: string,
  hidden: HiddenPaths,
  filter: SocketFilter,
  network: HostNetworkView | null = null,
): string[] {
  const environment = Object.entries(commandEnvironment(realWorkspace)).flatMap(([name, value]) => [
    "--setenv",
    name,
    value,
  ]);
  return [
    ...workspaceMountArguments(realWorkspace, hidden),
    ...processArguments(filter, network),
    "--chdir",
    realWorkspace,
    "--clearenv",
    ...environment,
    "--",
    "/bin/sh",
    "-c",
    command,
  ];
}

/** How a long-running program (an MCP server) is confined: see `programSandboxArguments`. */
export interface ProgramSandbox {
  /** Real, absolute directories the program may write (none inside a hidden path). */
  writable: readonly string[];
  /** Real, absolute host paths inside the private directories it may read (its own program). */
  readable: readonly string[];
  /** A host directory mounted writable at another path in the sandbox (the program's HOME). */
  home: { hostPath: string; sandboxPath: string } | null;
  hidden: HiddenPaths;
  filter: SocketFilter;
  /** The outbound-only network's programs; null: no network. */
  network: NetworkHelper | null;
  /** Where it starts (real, absolute). */
  cwd: string;
}

/**
 * The bwrap arguments that run `command args` with the environment bwrap itself is given: the
 * host read-only but for `writable` (and `readable` shown read-only inside the private
 * directories), hidden paths covered, private /tmp and /run, `home` mounted, no Unix socket
 * (seccomp, from descriptor `SECCOMP_DESCRIPTOR` when `filter` has a program), own PID
 * namespace, no capabilities, and its own network namespace: empty, or outbound-only (`view`).
 */
export function programSandboxArguments(
  sandbox: ProgramSandbox,
  view: HostNetworkView | null,
  command: string,
  args: readonly string[],
): string[] {
  return [
    ...writableMountArguments(sandbox.writable, sandbox.hidden, sandbox.readable),
    ...(sandbox.home === null ? [] : ["--bind", sandbox.home.hostPath, sandbox.home.sandboxPath]),
    ...processArguments(sandbox.filter, view),
    "--chdir",
    sandbox.cwd,
    "--",
    command,
    ...args,
  ];
}

/**
 * Calls `use` with a read-only descriptor of the filter's program (null without a program),
 * closed afterwards. The program sits in an unlinked temporary file: spawning copies the
 * descriptor into the child, which is all bwrap needs.
 */
export function withSeccompDescriptor<T>(filter: SocketFilter, use: (descriptor: number | null) => T): T {
  if (filter.kind === "unsupported") return use(null);
  const directory = mkdtempSync(path.join(tmpdir(), "skein-seccomp-"));
  let descriptor: number;
  try {
    const file = path.join(directory, "filter.bpf");
    writeFileSync(file, filter.program, { mode: 0o600 });
    descriptor = openSync(file, "r");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  try {
    return use(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** Whether bwrap can build the sandbox on this machine. */
export type BwrapProbe = { usable: true } | { usable: false; reason: string };

const probes = new Map<string, BwrapProbe>();

/**
 * Runs `/bin/true` in the same sandbox (mounts, namespaces, seccomp filter) once per bwrap path
 * and filter kind and remembers the answer: bwrap being installed is not enough (namespaces can
 * be disabled, e.g. in some containers).
 */
export function probeBwrap(
  bwrapPath: string = DEFAULT_BWRAP_PATH,
  filter: SocketFilter = socketFilterFor(),
): BwrapProbe {
  const key = `${bwrapPath}\0${filter.kind}`;
  const known = probes.get(key);
  if (known !== undefined) return known;
  let probe: BwrapProbe;
  try {
    probe = withSeccompDescriptor(filter, (descriptor) => {
      const result = spawnSync(
        bwrapPath,
        [...baseMountArguments(), ...processArguments(filter), "--", "/bin/true"],
        {
          env: { PATH: COMMAND_PATH },
          stdio: ["ignore", "ignore", "pipe", ...(descriptor === null ? [] : [descriptor])],
          timeout: 10_000,
          encoding: "utf8",
        },
      );
      if (result.error !== undefined) {
        return { usable: false, reason: `cannot run ${bwrapPath}: ${result.error.message}` };
      }
      if (result.status !== 0) {
        const detail = result.stderr.trim() || `exit status ${String(result.status ?? result.signal)}`;
        return { usable: false, reason: `${bwrapPath} cannot build the sandbox here: ${detail}` };
      }
      return { usable: true };
    });
  } catch (error) {
    probe = { usable: false, reason: `cannot prepare the seccomp filter: ${errorMessage(error)}` };
  }
  probes.set(key, probe);
  return probe;
}
