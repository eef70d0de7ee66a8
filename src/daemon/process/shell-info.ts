/** `GET /server`'s `shell`: how sessions' run_command runs, and what to do when it cannot. */
import type { ShellInfo } from "../../api/server.js";
import { NETWORK_HELPER_INSTALL_HINT } from "../../tools/network-helper.js";
import {
  BWRAP_INSTALL_HINT,
  describeShellChoice,
  SANDBOX_NETWORK_ENV,
  type ShellChoice,
} from "../../tools/shell-mode.js";

/** The wire form of the daemon's shell decision. */
export function shellInfo(choice: ShellChoice): ShellInfo {
  const { text, warning } = describeShellChoice(choice);
  switch (choice.mode) {
    case "sandboxed":
      return {
        mode: "sandboxed",
        network: choice.network?.kind === "outbound",
        detail: text,
        hint:
          choice.network?.kind === "unavailable"
            ? `commands get no network although ${SANDBOX_NETWORK_ENV}=1 asks for one: ${NETWORK_HELPER_INSTALL_HINT}`
            : warning
              ? "commands are less confined than usual on this machine"
              : null,
      };
    case "unconfined":
      return {
        mode: "unconfined",
        network: true,
        detail: text,
        hint: `commands run as the daemon's user with no sandbox; install bubblewrap and unset the variable to confine them (${SANDBOX_NETWORK_ENV}=1 then gives them an outbound-only network)`,
      };
    case "off":
      // The reason may end with the same hint; it is given once, as the hint.
      return {
        mode: "off",
        network: false,
        detail: text.replace(`; ${BWRAP_INSTALL_HINT}`, ""),
        hint: BWRAP_INSTALL_HINT,
      };
    default: {
      const unreachable: never = choice;
      return unreachable;
    }
  }
}
