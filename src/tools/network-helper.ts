/**
 * The programs that give a sandbox its outbound-only network (see sandbox-network.ts), and
 * attaching it to a sandbox that bwrap holds before its program starts.
 *
 * Boundary rule: runs host programs. slirp4netns joins the sandbox's network namespace and
 * serves it for as long as the sandbox lives (it exits when its exit descriptor closes, so also
 * when the daemon dies); `nsenter` + `ip` add the prohibit rules. For a daemon not run as root,
 * both join the sandbox's user namespace first (sandbox-user-namespace.ts), which owns the
 * network namespace. The sandbox's program starts only after both succeeded: on any failure the
 * caller kills the sandbox, so a sandbox never runs with the host reachable, and never silently
 * with the host's network.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, readFileSync, readlinkSync } from "node:fs";
import { networkInterfaces } from "node:os";
import path from "node:path";
import {
  blockedDestinations,
  namespaceSetup,
  SANDBOX_INTERFACE,
  SANDBOX_MTU,
  SYSTEMD_UPSTREAM_RESOLV_CONF,
  sandboxResolvConf,
} from "./sandbox-network.js";
import { type SandboxUserNamespace, sandboxUserNamespace } from "./sandbox-user-namespace.js";
import { errorMessage } from "./system-error.js";

/** The host programs the outbound network needs (absolute paths). */
export interface NetworkHelper {
  slirp4netns: string;
  nsenter: string;
  /** util-linux's unshare: a root daemon's slirp4netns runs in a mount namespace of its own (see attachNetwork). */
  unshare: string;
  ip: string;
}

/** Whether the helper programs are there. */
export type NetworkHelperProbe = { usable: true; helper: NetworkHelper } | { usable: false; reason: string };

/** How to get the helper, for messages that say it is missing. */
export const NETWORK_HELPER_INSTALL_HINT =
  "install slirp4netns (Debian/Ubuntu: sudo apt install slirp4netns; Fedora: sudo dnf install slirp4netns; " +
  "Arch: sudo pacman -S slirp4netns); nsenter (util-linux) and ip (iproute2) are needed too";

/** Directories searched after the daemon's PATH (ip lives in /usr/sbin, often not on a user's PATH). */
const SYSTEM_DIRECTORIES = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** How long slirp4netns and `ip` may take to set the network up before the start fails. */
const SETUP_TIMEOUT_MS = 10_000;

/** Finds slirp4netns, nsenter and ip on `searchPath` (the daemon's PATH) and the system directories. */
export function probeNetworkHelper(searchPath: string | undefined = process.env.PATH): NetworkHelperProbe {
  const directories = [
    ...(searchPath ?? "").split(":").filter((entry) => path.isAbsolute(entry)),
    ...SYSTEM_DIRECTORIES,
  ];
  const find = (name: string) =>
    directories.map((directory) => path.join(directory, name)).find((candidate) => isExecutable(candidate));
  const slirp4netns = find("slirp4netns");
  const nsenter = find("nsenter");
  const unshare = find("unshare");
  const ip = find("ip");
  const missing = [
    ...(slirp4netns === undefined ? ["slirp4netns"] : []),
    ...(nsenter === undefined ? ["nsenter"] : []),
    ...(unshare === undefined ? ["unshare"] : []),
    ...(ip === undefined ? ["ip"] : []),
  ];
  if (slirp4netns === undefined || nsenter === undefined || unshare === undefined || ip === undefined) {
    return { usable: false, reason: `${missing.join(", ")} not found; ${NETWORK_HELPER_INSTALL_HINT}` };
  }
  return { usable: true, helper: { slirp4netns, nsenter, unshare, ip } };
}

/** What the host looks like to one sandbox, read when it starts: what to block, what DNS to give. */
export interface HostNetworkView {
  blocked: string[];
  /** The sandbox's resolv.conf, and where it goes (the real path of /etc/resolv.conf; null: left alone). */
  resolvConf: { text: string; target: string } | null;
  /** The sandbox's own user namespace, for a daemon not run as root; null: none (a root daemon). */
  userNamespace: SandboxUserNamespace | null;
}

/** Reads the host's addresses and resolv.conf now (they may change between sandboxes). */
export function hostNetworkView(): HostNetworkView {
  const blocked = blockedDestinations(networkInterfaces());
  const userNamespace = sandboxUserNamespace();
  const target = resolvConfTarget("/etc/resolv.conf");
  if (target === null) return { blocked, resolvConf: null, userNamespace };
  const host = readOrNull("/etc/resolv.conf") ?? "";
  const upstream = readOrNull(SYSTEMD_UPSTREAM_RESOLV_CONF);
  return {
    blocked,
    resolvConf: { text: sandboxResolvConf(host, upstream, blocked).text, target },
    userNamespace,
  };
}

/** The network of one sandbox: its slirp4netns process, stopped with `stop()` (idempotent). */
export interface AttachedNetwork {
  stop(): void;
}

/** The network could not be set up; the sandbox must not run. */
export class SandboxNetworkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxNetworkError";
  }
}

/**
 * Starts slirp4netns for the network namespace of `sandboxPid` (a process bwrap holds before its
 * program starts), then configures the namespace's interface, route and the prohibit rules for
 * `blocked`; resolves once both are done. With `inUserNamespace`, `ip` runs in the sandbox's user
 * namespace (already mapped), which owns its network namespace; slirp4netns joins the user
 * namespace of `sandboxPid` by itself.
 */
export async function attachNetwork(
  helper: NetworkHelper,
  sandboxPid: number,
  blocked: readonly string[],
  inUserNamespace: boolean,
): Promise<AttachedNetwork> {
  // Descriptor 3: the exit descriptor (slirp4netns exits when our end closes); 4: ready.
  // Run by root, slirp4netns's own sandbox changes mounts in a namespace whose propagation it
  // leaves shared, which detaches every named network namespace (/run/netns) of the host: it gets
  // a mount namespace of its own, private, first. Not as another user: its mounts then live in a
  // user namespace of their own and cannot propagate (and unshare --mount would be refused).
  const wrapper = inUserNamespace ? [] : [helper.unshare, "--mount", "--propagation", "private", "--"];
  const slirp = spawn(
    wrapper[0] ?? helper.slirp4netns,
    [
      ...wrapper.slice(1),
      ...(wrapper.length > 0 ? [helper.slirp4netns] : []),
      `--mtu=${SANDBOX_MTU}`,
      "--disable-host-loopback",
      "--disable-dns",
      "--enable-sandbox",
      "--enable-seccomp",
      "--exit-fd=3",
      "--ready-fd=4",
      String(sandboxPid),
      SANDBOX_INTERFACE,
    ],
    {
      cwd: "/",
      env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" },
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    },
  );
  const stop = () => {
    if (slirp.exitCode === null && slirp.signalCode === null) slirp.kill("SIGKILL");
    slirp.stdio[3]?.destroy();
  };
  try {
    await slirpReady(slirp);
    await runIp(helper, sandboxPid, namespaceSetup(blocked), inUserNamespace);
  } catch (error) {
    stop();
    throw error;
  }
  return { stop };
}

function slirpReady(slirp: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let stderr = "";
    slirp.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    const timer = setTimeout(
      () => fail(`slirp4netns was not ready within ${SETUP_TIMEOUT_MS} ms`),
      SETUP_TIMEOUT_MS,
    );
    const fail = (message: string) => {
      clearTimeout(timer);
      reject(new SandboxNetworkError(`${message}${stderr.trim() === "" ? "" : `: ${stderr.trim()}`}`));
    };
    const exited = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(`slirp4netns exited (${String(code ?? signal)}) before it was ready`);
    slirp.once("error", (error) => fail(`cannot run slirp4netns: ${errorMessage(error)}`));
    slirp.once("exit", exited);
    slirp.stdio[4]?.once("data", () => {
      clearTimeout(timer);
      slirp.off("exit", exited);
      resolve();
    });
  });
}

function runIp(
  helper: NetworkHelper,
  sandboxPid: number,
  batch: readonly string[],
  inUserNamespace: boolean,
): Promise<void> {
  // Without privileges, setns(CLONE_NEWNET) needs CAP_SYS_ADMIN in the joiner's own user namespace too.
  const userArguments = inUserNamespace ? ["--user", "--preserve-credentials"] : [];
  return new Promise((resolve, reject) => {
    const child = spawn(
      helper.nsenter,
      ["--target", String(sandboxPid), ...userArguments, "--net", helper.ip, "-batch", "-"],
      { cwd: "/", env: { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }, stdio: ["pipe", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-2000);
    });
    const timer = setTimeout(() => child.kill("SIGKILL"), SETUP_TIMEOUT_MS);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(new SandboxNetworkError(`cannot run ${helper.nsenter}: ${errorMessage(error)}`));
    });
    child.once("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new SandboxNetworkError(
            `cannot configure the sandbox's network (${String(code ?? signal)}): ${stderr.trim()}`,
          ),
        );
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(`${batch.join("\n")}\n`);
  });
}

/** Where the sandbox's resolv.conf is mounted: the real path /etc/resolv.conf leads to, if any. */
function resolvConfTarget(file: string): string | null {
  try {
    const link = readlinkSync(file);
    // A link into /run (systemd-resolved) leads into the sandbox's private /run: bwrap makes the file there.
    return path.resolve(path.dirname(file), link);
  } catch {
    return readOrNull(file) === null ? null : file;
  }
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return null;
  }
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
