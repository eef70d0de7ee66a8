/**
 * The chat's `/model` and `/sessions` as pickers: without an argument each lists numbered
 * choices (the configured profiles with their models; the sessions of this workspace), and
 * with a number (or, for sessions, an id prefix) it picks one.
 *
 * Boundary rule: one listing or one pick per command; the profiles are read from config.json,
 * the sessions and settings from the daemon.
 */

import type { SessionSettingsBody } from "../../api/session-settings.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import { agentsBeneathParents } from "../../api/session-tree.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import type { CliContext } from "../cli-context.js";
import { errorMessage } from "../cli-error.js";
import { sessionTable } from "../render/session-table.js";
import type { OutputStream } from "../render/terminal.js";
import type { TranscriptView } from "../render/transcript-view.js";
import { describeSettings } from "../session-settings-options.js";
import type { ChatEnd } from "./chat-end.js";
import { readConfig } from "./provider-config.js";

/** What a picker acts on: the chat's session and the view that shows it. */
export interface PickerScope {
  client: DaemonClient;
  context: CliContext;
  sessionId: string;
  view: TranscriptView;
  out: OutputStream;
}

/** A profile and its model, as `/model` numbers them. */
interface ModelChoice {
  profile: string;
  model: string;
}

/** `/model` with no argument: the numbered profiles and models, the current one marked. */
export async function listModelChoices(scope: PickerScope): Promise<void> {
  const { view } = scope;
  const choices = modelChoices(scope);
  if (choices.length === 0) {
    view.notice("no provider profiles are configured; add one with `skein config add`");
    return;
  }
  const current = (await scope.client.getSession(scope.sessionId, 0)).settings.effective;
  choices.forEach((choice, index) => {
    const mark =
      current !== null && current.provider_profile === choice.profile && current.model === choice.model
        ? "*"
        : " ";
    view.line(`${mark} ${String(index + 1).padStart(2)}  ${choice.profile}  ${choice.model}`);
  });
  if (current !== null && !choices.some((choice) => choice.model === current.model))
    view.notice(`now: ${current.model} (${current.provider_profile})`);
  view.notice(
    "pick one with /model N; /model NAME sets another model of this profile, /model default its own",
  );
}

/** The patch `/model N` asks for, or a message when N names no choice. */
export function modelChoicePatch(scope: PickerScope, number: number): SessionSettingsBody | string {
  const choice = modelChoices(scope)[number - 1];
  if (choice === undefined) return `no choice ${number}; /model lists them`;
  return { provider_profile: choice.profile, model: choice.model };
}

function modelChoices(scope: PickerScope): ModelChoice[] {
  const config = readConfig(scope.context.home);
  return Object.entries(config.providers).map(([profile, configured]) => ({
    profile,
    model: configured.model,
  }));
}

/** `/sessions [N|ID]`: list this workspace's sessions, numbered, or switch to the one picked. */
export async function pickSession(
  scope: PickerScope,
  argument: string | undefined,
): Promise<ChatEnd | "continue"> {
  const { client, context, view } = scope;
  const all = await client.listSessions();
  const sessions = agentsBeneathParents(all.filter((session) => session.workspace === context.cwd)).map(
    (row) => row.session,
  );
  if (argument === undefined) {
    if (sessions.length === 0) {
      view.notice("no sessions in this workspace");
      return "continue";
    }
    const [header, ...rows] = sessionTable(sessions, scope.out, Date.now(), all);
    view.line(`     ${header}`);
    rows.forEach((row, index) => {
      const mark = sessions[index]!.id === scope.sessionId ? "*" : " ";
      view.line(`${mark} ${String(index + 1).padStart(2)}  ${row}`);
    });
    view.notice("switch to one with /sessions N (or an id prefix)");
    return "continue";
  }
  const picked = pickedByNumberOrPrefix(sessions, all, argument, { what: "session", list: "/sessions" });
  if (typeof picked === "string") {
    view.notice(picked);
    return "continue";
  }
  if (picked.id === scope.sessionId) {
    view.notice("already in that session");
    return "continue";
  }
  view.notice(`left session ${scope.sessionId}`);
  return { kind: "switch", sessionId: picked.id };
}

/**
 * The session `argument` picks: its number among `numbered` (as listed), or an id prefix that
 * matches exactly one of `candidates`; else what to tell the person (`what` names the kind).
 */
export function pickedByNumberOrPrefix(
  numbered: readonly SessionSummary[],
  candidates: readonly SessionSummary[],
  argument: string,
  names: { what: string; list: string },
): SessionSummary | string {
  const byNumber = /^\d+$/.test(argument) ? numbered[Number(argument) - 1] : undefined;
  const byPrefix = candidates.filter((session) => session.id.startsWith(argument.toLowerCase()));
  const picked = byNumber ?? (byPrefix.length === 1 ? byPrefix[0] : undefined);
  if (picked !== undefined) return picked;
  return byPrefix.length > 1
    ? `"${argument}" matches ${byPrefix.length} ${names.what}s; type more of the id`
    : `no ${names.what} ${argument}; ${names.list} lists them`;
}

/** Apply `patch` to the chat's session and say what the next turn runs with. */
export function applySettings(scope: PickerScope, patch: SessionSettingsBody): void {
  scope.client
    .updateSettings(scope.sessionId, patch)
    .then((settings) => scope.view.notice(`from the next turn on: ${describeSettings(settings)}`))
    .catch((error: unknown) => scope.view.notice(errorMessage(error)));
}
