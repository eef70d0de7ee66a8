/**
 * The bubblewrap (`bwrap`) sandbox that `run_command` runs inside, and a check that it works.
 *
 * Boundary rule: the only writable places a sandboxed command sees are the workspace and a
 * private /tmp; the rest of the filesystem is read-only, there is no network, the command is in
 * its own PID namespace (all of it dies when bwrap dies), and it holds no capabilities, so even
 * when the daemon runs as root the command cannot remount the read-only tree.
 */
import { spawnSync } from "node:child_process";

/** Where Debian's `bubblewrap` package installs bwrap. */
export const DEFAULT_BWRAP_PATH = "/usr/bin/bwrap";

/** The PATH a command sees (sandboxed or not). */
export const COMMAND_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** The whole environment a command gets: nothing of the daemon's own environment leaks in. */
export function commandEnvironment(realWorkspace: string): Record<string, string> {
  return { PATH: COMMAND_PATH, HOME: realWorkspace, LANG: "C.UTF-8" };
}

/** Namespace and mount options shared by the sandbox and its probe, before the workspace bind. */
function isolationArguments(): string[] {
  return ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"];
}

function processArguments(): string[] {
  // --cap-drop ALL matters when the daemon is root: with capabilities the command could remount / rw.
  return ["--unshare-net", "--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL"];
}

/**
 * The bwrap arguments that run `sh -c command` confined to `realWorkspace` (a real, absolute
 * path), with each of `hiddenPaths` (existing absolute directories) covered by an empty tmpfs.
 */
export function sandboxArguments(
  realWorkspace: string,
  command: string,
  hiddenPaths: readonly string[] = [],
): string[] {
  const environment = Object.entries(commandEnvironment(realWorkspace)).flatMap(([name, value]) => [
    "--setenv",
    name,
    value,
  ]);
  return [
    ...isolationArguments(),
    ...hiddenPaths.flatMap((hidden) => ["--tmpfs", hidden]),
    // After the tmpfs mounts, so a workspace under /tmp (or under a hidden path) is still the real directory.
    "--bind",
    realWorkspace,
    realWorkspace,
    ...processArguments(),
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

/** Whether bwrap can build the sandbox on this machine. */
export type BwrapProbe = { usable: true } | { usable: false; reason: string };

const probes = new Map<string, BwrapProbe>();

/**
 * Runs `/bin/true` in the same sandbox once per bwrap path and remembers the answer: bwrap being
 * installed is not enough (namespaces can be disabled, e.g. in some containers).
 */
export function probeBwrap(bwrapPath: string = DEFAULT_BWRAP_PATH): BwrapProbe {
  const known = probes.get(bwrapPath);
  if (known !== undefined) return known;
  const result = spawnSync(bwrapPath, [...isolationArguments(), ...processArguments(), "--", "/bin/true"], {
    env: { PATH: COMMAND_PATH },
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000,
    encoding: "utf8",
  });
  let probe: BwrapProbe;
  if (result.error !== undefined) {
    probe = { usable: false, reason: `cannot run ${bwrapPath}: ${result.error.message}` };
  } else if (result.status !== 0) {
    const detail = result.stderr.trim() || `exit status ${String(result.status ?? result.signal)}`;
    probe = { usable: false, reason: `${bwrapPath} cannot build the sandbox here: ${detail}` };
  } else {
    probe = { usable: true };
  }
  probes.set(bwrapPath, probe);
  return probe;
}
