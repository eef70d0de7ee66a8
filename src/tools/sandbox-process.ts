/**
 * Starting a program under bwrap: the seccomp program on its descriptor, and, when the sandbox
 * gets the outbound-only network, the steps between bwrap making the namespaces and the program
 * starting: read the sandbox's pid, map its user namespace (a daemon not run as root), attach
 * slirp4netns and the prohibit rules, then let bwrap go.
 *
 * Boundary rule: owns the helper processes of one sandbox. The program never starts with a
 * network that is not fully set up: if any step fails, the sandbox's process group is killed
 * (bwrap is its leader) and `ready` rejects with a `SandboxNetworkError`. The helper is stopped
 * when bwrap exits.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { Duplex } from "node:stream";
import {
  BLOCK_DESCRIPTOR,
  INFO_DESCRIPTOR,
  RESOLV_CONF_DESCRIPTOR,
  withSeccompDescriptor,
} from "./bubblewrap.js";
import {
  type AttachedNetwork,
  attachNetwork,
  type HostNetworkView,
  type NetworkHelper,
  SandboxNetworkError,
} from "./network-helper.js";
import { mapUserNamespace } from "./sandbox-user-namespace.js";
import type { SocketFilter } from "./socket-filter.js";
import { errorMessage } from "./system-error.js";

/** What to start: bwrap with `args` (built for `network`'s view when there is one). */
export interface SandboxSpawn {
  bwrapPath: string;
  args: readonly string[];
  env: Record<string, string>;
  stdin: "pipe" | "ignore";
  filter: SocketFilter;
  network: { helper: NetworkHelper; view: HostNetworkView } | null;
}

/** A started sandbox: `ready` resolves once its program may run (at once without a network). */
export interface SandboxedChild {
  child: ChildProcess;
  ready: Promise<void>;
}

/** Starts bwrap as its own process group's leader (so killing the group ends the whole sandbox). */
export function spawnSandbox(spec: SandboxSpawn): SandboxedChild {
  // Descriptors INFO_DESCRIPTOR, BLOCK_DESCRIPTOR and RESOLV_CONF_DESCRIPTOR, right after the seccomp one.
  const networkStdio: Array<"pipe"> = spec.network === null ? [] : ["pipe", "pipe", "pipe"];
  const child = withSeccompDescriptor(spec.filter, (descriptor) =>
    spawn(spec.bwrapPath, [...spec.args], {
      cwd: "/",
      env: spec.env,
      stdio: [spec.stdin, "pipe", "pipe", descriptor ?? "ignore", ...networkStdio],
      detached: true,
    }),
  );
  if (spec.network === null) return { child, ready: Promise.resolve() };
  const ready = attachWhenHeld(child, spec.network.helper, spec.network.view);
  // The caller awaits `ready`; this keeps a failure seen before it does from being "unhandled".
  ready.catch(() => undefined);
  return { child, ready };
}

async function attachWhenHeld(
  child: ChildProcess,
  helper: NetworkHelper,
  view: HostNetworkView,
): Promise<void> {
  const info = streamAt(child, INFO_DESCRIPTOR);
  const block = streamAt(child, BLOCK_DESCRIPTOR);
  const resolvConf = streamAt(child, RESOLV_CONF_DESCRIPTOR);
  block?.on("error", () => undefined);
  resolvConf?.on("error", () => undefined);
  if (view.resolvConf !== null) resolvConf?.end(view.resolvConf.text);
  else resolvConf?.end();
  let network: AttachedNetwork | null = null;
  child.once("exit", () => network?.stop());
  try {
    const pid = await sandboxPid(child, info);
    if (view.userNamespace !== null) mapUserNamespace(pid, view.userNamespace);
    network = await attachNetwork(helper, pid, view.blocked, view.userNamespace !== null);
    if (child.exitCode !== null || child.signalCode !== null) network.stop();
    block?.end("1");
  } catch (error) {
    network?.stop();
    killGroup(child);
    throw error instanceof SandboxNetworkError
      ? error
      : new SandboxNetworkError(`cannot set up the sandbox's network: ${errorMessage(error)}`);
  }
}

/** The pid bwrap reports on its info descriptor (`{"child-pid": N}`), once it has made the namespaces. */
function sandboxPid(child: ChildProcess, info: Duplex | null): Promise<number> {
  return new Promise((resolve, reject) => {
    if (info === null) {
      reject(new SandboxNetworkError("bwrap has no info descriptor"));
      return;
    }
    let text = "";
    const done = (error: Error | null, pid?: number) => {
      info.off("data", onData);
      child.off("exit", onExit);
      if (error !== null) reject(error);
      else resolve(pid ?? 0);
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString("utf8");
      const match = /"child-pid"\s*:\s*(\d+)/.exec(text);
      if (match?.[1] !== undefined) done(null, Number(match[1]));
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new SandboxNetworkError(`bwrap exited (${String(code ?? signal)}) before the sandbox was made`));
    info.on("data", onData);
    child.once("exit", onExit);
  });
}

/** The pipe at descriptor `index` of the child (spawned with "pipe" there), if any. */
function streamAt(child: ChildProcess, index: number): Duplex | null {
  const stream: unknown = (child.stdio as ReadonlyArray<unknown>)[index];
  return stream instanceof Duplex ? stream : null;
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // ESRCH: the group is gone already.
  }
}
