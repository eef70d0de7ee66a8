/**
 * The model options of `skein run` and `skein chat` (`--profile`, `--model`, `--effort`,
 * `--max-tokens`, `--temperature`) and the chat's `/model` and `/effort`: what a new session is
 * created with, or the `PATCH /sessions/{id}` that changes an existing one.
 *
 * Boundary rule: translation from options to the contract's bodies; the daemon validates.
 */

import { InvalidArgumentError } from "commander";
import type { RequestConfigBody, SessionSettings, SessionSettingsBody } from "../api/session-settings.js";
import type { NewSessionBody } from "../api/sessions.js";

/** The model options a command was given. */
export interface ModelOptions {
  profile?: string;
  model?: string;
  effort?: string;
  maxTokens?: number;
  temperature?: number;
}

const efforts = ["minimal", "low", "medium", "high", "xhigh"] as const;
type Effort = (typeof efforts)[number];

/** commander parser of `--effort`. */
export function effortOption(value: string): string {
  if (!(efforts as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${efforts.join(", ")}`);
  }
  return value;
}

/** commander parser of `--temperature`. */
export function temperatureOption(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || parsed > 2)
    throw new InvalidArgumentError("expected a number from 0 to 2");
  return parsed;
}

function requestConfigOf(options: ModelOptions): RequestConfigBody | undefined {
  const config: RequestConfigBody = {};
  if (options.effort !== undefined) config.reasoning = { effort: options.effort as Effort };
  if (options.maxTokens !== undefined) config.max_tokens = options.maxTokens;
  if (options.temperature !== undefined) config.temperature = options.temperature;
  return Object.keys(config).length === 0 ? undefined : config;
}

/** The fields a new session is created with. */
export function newSessionSettings(
  options: ModelOptions,
): Pick<NewSessionBody, "provider_profile" | "model" | "request_config"> {
  const config = requestConfigOf(options);
  return {
    ...(options.profile === undefined ? {} : { provider_profile: options.profile }),
    ...(options.model === undefined ? {} : { model: options.model }),
    ...(config === undefined ? {} : { request_config: config }),
  };
}

/** The change the options ask of an existing session, or null when they ask none. */
export function settingsPatch(options: ModelOptions): SessionSettingsBody | null {
  const patch: SessionSettingsBody = {};
  if (options.profile !== undefined) patch.provider_profile = options.profile;
  if (options.model !== undefined) patch.model = options.model;
  const config = requestConfigOf(options);
  if (config !== undefined) patch.request_config = config;
  return Object.keys(patch).length === 0 ? null : patch;
}

/**
 * The chat's `/model [NAME|default]` and `/effort [LEVEL|default]`: the patch they ask for, or
 * a usage message.
 */
export function slashSettingsPatch(
  command: "/model" | "/effort",
  argument: string | undefined,
): SessionSettingsBody | string {
  if (argument === undefined || argument === "") {
    return command === "/model"
      ? "usage: /model NAME (or /model default)"
      : `usage: /effort ${efforts.join("|")}|default`;
  }
  if (command === "/model") return { model: argument === "default" ? null : argument };
  if (argument === "default") return { request_config: { reasoning: null } };
  if (!(efforts as readonly string[]).includes(argument))
    return `effort must be one of ${efforts.join(", ")} or default`;
  return { request_config: { reasoning: { effort: argument as Effort } } };
}

/** One line saying what a session now runs with. */
export function describeSettings(settings: SessionSettings): string {
  const effective = settings.effective;
  if (effective === null) return "no provider is configured (skein config add …)";
  const reasoning = effective.request_config.reasoning;
  const effort =
    reasoning === undefined
      ? ""
      : "effort" in reasoning
        ? ` · effort ${reasoning.effort}`
        : ` · thinking budget ${reasoning.budget_tokens}`;
  return `${effective.model} (${effective.provider_profile})${effort}`;
}
