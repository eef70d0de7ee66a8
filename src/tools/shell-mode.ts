/**
 * Decides whether a session's agent gets `run_command`, and how it is confined.
 *
 * Boundary rule: a command never runs unconfined by accident. "sandboxed" needs a working bwrap;
 * without one the tool is simply not offered. "unconfined" (plain `sh -c` in the workspace
 * directory, no isolation) is allowed only when the operator sets SKEIN_UNCONFINED_SHELL=1 in
 * the daemon's environment; asking for it without that is a configuration error.
 *
 * With no explicit request: sandboxed when bwrap works, else unconfined if the operator set
 * SKEIN_UNCONFINED_SHELL=1, else off. A sandbox on an architecture without a seccomp socket
 * filter still runs, with the private /run and /tmp mounts as its only guard against host
 * sockets; `describeShellChoice` says so, for the daemon's log.
 */
import { DEFAULT_BWRAP_PATH, probeBwrap } from "./bubblewrap.js";
import { type NetworkHelper, type NetworkHelperProbe, probeNetworkHelper } from "./network-helper.js";
import { type SocketFilter, socketFilterFor } from "./socket-filter.js";

/** How `run_command` is offered: inside bwrap, as a plain shell, or not at all. */
export type ShellMode = "sandboxed" | "unconfined" | "off";

/** The environment variable an operator sets to "1" to allow an unconfined shell. */
export const UNCONFINED_SHELL_ENV = "SKEIN_UNCONFINED_SHELL";

/** Where bwrap is, when it is not at /usr/bin/bwrap (e.g. NixOS). */
export const BWRAP_PATH_ENV = "SKEIN_BWRAP_PATH";

/**
 * The environment variable an operator sets to "1" to give sandboxed commands an outbound-only
 * network (never the host's own services: see sandbox-network.ts).
 */
export const SANDBOX_NETWORK_ENV = "SKEIN_SANDBOX_NETWORK";

/** How to get bubblewrap, for messages that say it is missing. */
export const BWRAP_INSTALL_HINT =
  "install bubblewrap (Debian/Ubuntu: sudo apt install bubblewrap; Fedora: sudo dnf install bubblewrap; " +
  `Arch: sudo pacman -S bubblewrap), or set ${UNCONFINED_SHELL_ENV}=1 in the daemon's environment ` +
  "to let commands run unconfined";

/**
 * The network of sandboxed commands when the operator asked for one: outbound-only through the
 * helper, or none because the helper is missing (`reason`). No network when absent.
 */
export type ShellNetwork =
  | { kind: "outbound"; helper: NetworkHelper }
  | { kind: "unavailable"; reason: string };

/** A shell that will be offered to the model. */
export type OfferedShell =
  | { mode: "sandboxed"; bwrapPath: string; socketFilter: SocketFilter; network?: ShellNetwork }
  | { mode: "unconfined" };

/** The decision, with the reason when no shell is offered. */
export type ShellChoice = OfferedShell | { mode: "off"; reason: string };

/** What the decision depends on. */
export interface ShellChoiceOptions {
  /** The requested mode; omitted means "decide from the machine and the environment". */
  shell?: ShellMode;
  /** Environment to read SKEIN_UNCONFINED_SHELL from (default: process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** bwrap binary (default: SKEIN_BWRAP_PATH, else /usr/bin/bwrap). */
  bwrapPath?: string;
  /** Finds the network helper (default: on the daemon's PATH and the system directories). */
  probeNetwork?: () => NetworkHelperProbe;
}

/** A shell mode that cannot be honoured as configured. */
export class ShellConfigurationError extends Error {
  constructor(
    readonly requested: ShellMode,
    message: string,
  ) {
    super(message);
    this.name = "ShellConfigurationError";
  }
}

/** Chooses how (or whether) `run_command` is offered; throws `ShellConfigurationError` on a bad request. */
export function chooseShell(options: ShellChoiceOptions = {}): ShellChoice {
  const env = options.env ?? process.env;
  const bwrapPath = options.bwrapPath ?? env[BWRAP_PATH_ENV] ?? DEFAULT_BWRAP_PATH;
  const socketFilter = socketFilterFor();
  const unconfinedAllowed = env[UNCONFINED_SHELL_ENV] === "1";
  const network =
    env[SANDBOX_NETWORK_ENV] === "1" ? shellNetwork(options.probeNetwork ?? probeNetworkHelper) : undefined;
  const withNetwork = network === undefined ? {} : { network };
  const requested = options.shell;
  switch (requested) {
    case "off":
      return { mode: "off", reason: "the shell is turned off" };
    case "unconfined":
      if (!unconfinedAllowed) {
        throw new ShellConfigurationError(
          requested,
          `an unconfined shell needs ${UNCONFINED_SHELL_ENV}=1 in the daemon's environment`,
        );
      }
      return { mode: "unconfined" };
    case "sandboxed": {
      const probe = probeBwrap(bwrapPath, socketFilter);
      return probe.usable
        ? { mode: "sandboxed", bwrapPath, socketFilter, ...withNetwork }
        : { mode: "off", reason: probe.reason };
    }
    case undefined: {
      const probe = probeBwrap(bwrapPath, socketFilter);
      if (probe.usable) return { mode: "sandboxed", bwrapPath, socketFilter, ...withNetwork };
      if (unconfinedAllowed) return { mode: "unconfined" };
      return { mode: "off", reason: `${probe.reason}; ${BWRAP_INSTALL_HINT}` };
    }
    default: {
      const unreachable: never = requested;
      throw new ShellConfigurationError(unreachable, `unknown shell mode ${String(unreachable)}`);
    }
  }
}

function shellNetwork(probe: () => NetworkHelperProbe): ShellNetwork {
  const found = probe();
  return found.usable
    ? { kind: "outbound", helper: found.helper }
    : { kind: "unavailable", reason: found.reason };
}

/** The end of the log line about the shell's network. */
function describeNetwork(network: ShellNetwork | undefined): string {
  switch (network?.kind) {
    case undefined:
      return `; it has no network (${SANDBOX_NETWORK_ENV}=1 gives it an outbound-only one)`;
    case "outbound":
      return `; it has an outbound-only network, with no route to the host's own addresses (${SANDBOX_NETWORK_ENV}=1)`;
    case "unavailable":
      return `; it has no network although ${SANDBOX_NETWORK_ENV}=1 asks for one: ${network.reason}`;
    default: {
      const unreachable: never = network;
      return unreachable;
    }
  }
}

/** One line for the daemon's log saying how commands run; `warning` when they are less confined than usual. */
export function describeShellChoice(choice: ShellChoice): { warning: boolean; text: string } {
  switch (choice.mode) {
    case "sandboxed": {
      const network = describeNetwork(choice.network);
      const networkMissing = choice.network?.kind === "unavailable";
      return choice.socketFilter.kind === "filter"
        ? {
            warning: networkMissing,
            text: `run_command is sandboxed by ${choice.bwrapPath} with a seccomp socket filter (${choice.socketFilter.architecture})${network}`,
          }
        : {
            warning: true,
            text:
              `run_command is sandboxed by ${choice.bwrapPath} without a seccomp socket filter ` +
              `(${choice.socketFilter.reason}): host Unix sockets outside /run and /tmp stay reachable${network}`,
          };
    }
    case "unconfined":
      return { warning: true, text: `run_command is unconfined (${UNCONFINED_SHELL_ENV}=1)` };
    case "off":
      return { warning: false, text: `run_command is not offered: ${choice.reason}` };
    default: {
      const unreachable: never = choice;
      return unreachable;
    }
  }
}
