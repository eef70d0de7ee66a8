/**
 * The chat's slash commands (/new, /fork, /model, /undo, …): their list, as Tab completes it and
 * /help shows it, and what each one does.
 *
 * Boundary rule: one command at a time, in the session the chat is in; a command that leaves
 * the session (/exit, /new, /fork) says how the chat goes on and the prompt loop does it.
 */

import { approvalModes } from "../../api/approval-modes.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { uuidV7 } from "../../client/uuid-v7.js";
import { approvalModeLines, type ChatApprovalMode, modeNamed } from "../chat-approval-mode.js";
import type { CliContext } from "../cli-context.js";
import { CliError, errorMessage } from "../cli-error.js";
import { exitCodes } from "../exit-codes.js";
import { osc52Copy } from "../render/clipboard.js";
import type { OutputStream } from "../render/terminal.js";
import type { TranscriptView } from "../render/transcript-view.js";
import { slashSettingsPatch } from "../session-settings-options.js";
import type { SessionWatcher } from "../session-watcher.js";
import { backToParent, pickAgent } from "./chat-agents.js";
import type { ChatEnd } from "./chat-end.js";
import { applySettings, listModelChoices, modelChoicePatch, pickSession } from "./chat-pickers.js";
import { undoTurnLines } from "./checkpoints.js";
import { latestCheckpoint } from "./fork.js";

/** The slash commands, as completed by Tab and listed by /help. */
const slashCommands: readonly (readonly [string, string])[] = [
  ["/help", "this list"],
  ["/new", "start a new session in this workspace (this one stays)"],
  ["/sessions", "/sessions lists this workspace's sessions, /sessions N switches to one"],
  ["/fork", "continue in a copy of this session (this one stays as it is)"],
  ["/agents", "/agents lists the agents this session's tasks started, /agents N opens one (live)"],
  ["/parent", "back to the session whose task started this agent's session"],
  ["/model", "/model lists profiles and models, /model N picks one, /model NAME|default sets the model"],
  ["/effort", "/effort minimal|low|medium|high|xhigh|default: how hard the model thinks"],
  ["/approvals", "/approvals [MODE]: what runs without asking (read-only, ask, auto-edit, full-auto)"],
  ["/compact", "summarize older messages so the context is smaller (the history stays)"],
  ["/undo", "put the workspace back to before the latest turn that called tools (again: one more)"],
  ["/copy", "copy the last answer to the clipboard (OSC 52, through ssh and tmux too)"],
  ["/thinking", "show or hide the model's thinking"],
  ["/status", "session, model and token usage"],
  ["/id", "print the session id"],
  ["/exit", "leave (Ctrl-D works too); the session stays and can be resumed with --session"],
];

/** The names Tab completes after `/`. */
export const slashCommandNames: readonly string[] = slashCommands.map(([name]) => name);

const helpText = [
  ...slashCommands.map(([name, text]) => `${name.padEnd(10)} ${text}`),
  "Enter sends; Alt-Enter, Shift-Enter (where the terminal reports it), Ctrl-J or \\ at the end of a line: newline.",
  "Shift-Tab: the next approval mode (read-only → ask → auto-edit → full-auto), shown before the prompt.",
  "Up/Down: earlier prompts (kept per workspace); Ctrl-R searches them; Tab completes /commands and @paths.",
  "@path attaches a workspace file. Typing during a turn queues the next prompt.",
  "Ctrl-C interrupts a running turn; Ctrl-C twice on an empty prompt exits.",
];

/** What a slash command acts on: the chat's session, and the view and stream that show it. */
export interface SlashCommandScope {
  client: DaemonClient;
  context: CliContext;
  sessionId: string;
  watcher: SessionWatcher;
  view: TranscriptView;
  out: OutputStream;
  approvalMode: ChatApprovalMode;
}

/** Run the slash command `text` (trimmed, starting with `/`): the chat ends, or goes on. */
export async function runSlashCommand(scope: SlashCommandScope, text: string): Promise<ChatEnd | "continue"> {
  const { client, context, sessionId, watcher, view } = scope;
  const [command] = text.split(/\s+/, 1);
  const failed = (error: unknown): void => view.notice(errorMessage(error));
  switch (command) {
    case "/exit":
    case "/quit":
      return { kind: "exit", code: exitCodes.ok };
    case "/new": {
      const snapshot = await client.createSession(uuidV7(), { workspace: context.cwd });
      view.notice(
        `left session ${sessionId} (resume it with skein chat --session ${sessionId.slice(0, 13)})`,
      );
      return { kind: "switch", sessionId: snapshot.id };
    }
    case "/fork":
      return forkHere(scope, failed);
    case "/sessions":
      return pickSession(scope, text.split(/\s+/)[1]);
    case "/agents":
      return pickAgent(scope, text.split(/\s+/)[1]);
    case "/parent":
      return backToParent(scope);
    case "/copy":
      copyLastAnswer(scope);
      return "continue";
    case "/thinking":
      view.showThinking = !view.showThinking;
      view.notice(`thinking is ${view.showThinking ? "shown" : "hidden"}`);
      return "continue";
    case "/status": {
      const usage = watcher.sessionUsage;
      view.notice(
        `session ${sessionId} · ${watcher.model ?? "no model"} · ${watcher.status.phase} · ` +
          `${usage.total} tokens (${usage.prompt} in, ${usage.completion} out, ${usage.cached} cached)`,
      );
      return "continue";
    }
    case "/id":
      view.line(sessionId);
      return "continue";
    case "/model":
    case "/effort":
      await changeSettings(scope, command, text.split(/\s+/)[1], failed);
      return "continue";
    case "/approvals":
      await pickApprovalMode(scope, text.split(/\s+/)[1]);
      return "continue";
    case "/undo":
      await undoLastTurn(scope, failed);
      return "continue";
    case "/compact":
      // Started, completed and failed show as stream notices and the history's compaction line.
      client.compact(sessionId).catch(failed);
      return "continue";
    case "/help":
      for (const line of helpText) view.notice(line);
      return "continue";
    default:
      view.notice(`unknown command ${command}; /help lists them`);
      return "continue";
  }
}

/** `/approvals`: list the modes (the current one marked), or switch to the one `argument` names. */
async function pickApprovalMode(scope: SlashCommandScope, argument: string | undefined): Promise<void> {
  const { view, approvalMode } = scope;
  if (argument === undefined) {
    approvalModes.forEach((mode, index) => {
      const mark = mode === approvalMode.mode ? "●" : " ";
      view.line(`${mark} ${index + 1} ${mode.padEnd(9)} ${approvalModeLines[mode]}`);
    });
    view.notice("pick one with /approvals MODE (or its number); Shift-Tab cycles");
    return;
  }
  const mode = modeNamed(argument);
  if (mode === null) {
    view.notice(`unknown approval mode ${argument}: one of ${approvalModes.join(", ")}`);
    return;
  }
  await approvalMode.set(mode);
}

/** `/fork`: continue in a fork of the session at its newest checkpoint. */
async function forkHere(
  scope: SlashCommandScope,
  failed: (error: unknown) => void,
): Promise<ChatEnd | "continue"> {
  const { client, sessionId, view } = scope;
  try {
    const checkpoint = await latestCheckpoint(client, sessionId);
    const snapshot = await client.forkSession(uuidV7(), {
      source_session_id: sessionId,
      checkpoint_id: checkpoint,
    });
    view.notice(`forked ${sessionId}; the original stays as it is`);
    return { kind: "switch", sessionId: snapshot.id };
  } catch (error) {
    failed(error);
    return "continue";
  }
}

/** `/copy`: the last answer to the clipboard (OSC 52). */
function copyLastAnswer(scope: SlashCommandScope): void {
  const { context, view } = scope;
  const answer = view.lastAnswer;
  if (answer === "") {
    view.notice("no answer to copy yet");
    return;
  }
  process.stdout.write(osc52Copy(answer, context.env));
  view.notice(`copied the last answer (${answer.length} characters) to the clipboard`);
}

/** `/model [NAME | N]` and `/effort LEVEL`: the choices, or the settings from the next turn on. */
async function changeSettings(
  scope: SlashCommandScope,
  command: "/model" | "/effort",
  argument: string | undefined,
  failed: (error: unknown) => void,
): Promise<void> {
  const { view } = scope;
  if (command === "/model" && (argument === undefined || /^\d+$/.test(argument))) {
    if (argument === undefined) await listModelChoices(scope).catch(failed);
    else {
      const picked = modelChoicePatch(scope, Number(argument));
      if (typeof picked === "string") view.notice(picked);
      else applySettings(scope, picked);
    }
    return;
  }
  const patch = slashSettingsPatch(command, argument);
  if (typeof patch === "string") view.notice(patch);
  else applySettings(scope, patch);
}

/** `/undo`: the workspace back to before the last turn. */
async function undoLastTurn(scope: SlashCommandScope, failed: (error: unknown) => void): Promise<void> {
  const { context, sessionId, view } = scope;
  try {
    for (const line of await undoTurnLines(context, sessionId, {})) view.line(line);
  } catch (error) {
    // A CliError's hint says what to do (interrupt a running turn first, say).
    failed(error);
    if (error instanceof CliError && error.hint !== undefined) view.notice(error.hint);
  }
}
