/**
 * The approval mode of the session a chat is in: what the prompt shows, and changing it
 * (Shift-Tab cycles, `/approvals MODE` picks) through `PUT /sessions/{id}/approval-policy`.
 *
 * Boundary rule: the daemon's answer is the truth: the prompt shows a mode once the daemon has
 * logged it. Changes are sent one after another, so Shift-Tab pressed three times quickly moves
 * three steps, in order.
 */
import { approvalModes, nextApprovalMode } from "../api/approval-modes.js";
import type { ApprovalMode } from "../api/approvals.js";
import type { DaemonClient } from "../client/daemon-client.js";
import { unreachable } from "../model/unreachable.js";
import { errorMessage } from "./cli-error.js";
import type { Paint } from "./render/terminal.js";

/** What a mode change tells the chat: the new mode, or why it failed. */
export interface ModeListener {
  changed(mode: ApprovalMode): void;
  failed(message: string): void;
}

/** One line per mode, for `/approvals` without an argument. */
export const approvalModeLines: Readonly<Record<ApprovalMode, string>> = {
  "read-only": "read and search only: writes, commands, web fetches and MCP calls are refused",
  ask: "ask before writes and commands (read-only commands such as ls, cat, git status run at once)",
  "auto-edit": "file edits in the workspace run at once; other commands are asked",
  "full-auto": "everything runs at once, inside the sandbox (paths outside the workspace stay denied)",
};

/** A chat's view of its session's approval mode. */
export class ChatApprovalMode {
  #shown: ApprovalMode;
  /** The mode the last change asked for (where the next Shift-Tab starts from). */
  #wanted: ApprovalMode;
  #sending: Promise<void> = Promise.resolve();

  /** The mode `initial` (from the session's snapshot) of session `sessionId`. */
  constructor(
    private readonly client: DaemonClient,
    private readonly sessionId: string,
    initial: ApprovalMode,
    private readonly listener: ModeListener,
  ) {
    this.#shown = initial;
    this.#wanted = initial;
  }

  /** The mode the daemon last confirmed. */
  get mode(): ApprovalMode {
    return this.#shown;
  }

  /** Shift-Tab: the mode after the one last asked for. */
  cycle(): Promise<void> {
    return this.set(nextApprovalMode(this.#wanted));
  }

  /** Ask the daemon for `mode`; the listener hears the outcome. */
  set(mode: ApprovalMode): Promise<void> {
    this.#wanted = mode;
    this.#sending = this.#sending.then(async () => {
      try {
        const answer = await this.client.setApprovalMode(this.sessionId, mode);
        this.#shown = answer.approval_mode;
        this.listener.changed(answer.approval_mode);
      } catch (error) {
        this.#wanted = this.#shown;
        this.listener.failed(`approval mode not changed: ${errorMessage(error)}`);
      }
    });
    return this.#sending;
  }
}

/** The mode as the prompt shows it before its mark: nothing for `ask` (the default), else a colored name. */
export function modeLabel(paint: Paint, mode: ApprovalMode): string {
  switch (mode) {
    case "ask":
      return "";
    case "read-only":
      return `${paint.blue(mode)} `;
    case "auto-edit":
      return `${paint.yellow(mode)} `;
    case "full-auto":
      return `${paint.red(mode)} `;
    default:
      unreachable(mode, "unknown approval mode");
  }
}

/** The mode `/approvals ARG` names (a mode's name or its number in the list), or null. */
export function modeNamed(argument: string): ApprovalMode | null {
  const byNumber = /^[1-9]$/.test(argument) ? approvalModes[Number(argument) - 1] : undefined;
  if (byNumber !== undefined) return byNumber;
  return approvalModes.find((mode) => mode === argument) ?? null;
}
