/**
 * `skein schedule add|list|pause|resume|remove`: schedules that fire a prompt into a session (or
 * into a new session each time) on a cron expression or at one time.
 *
 * Boundary rule: each command is one or two requests to the daemon's `/schedules` routes; the
 * daemon checks the schedule (the cron expression, the time zone, the session) and fires it.
 */
import { resolve } from "node:path";
import type { CreateScheduleBody, Schedule } from "../../api/schedules.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

export interface AddScheduleOptions {
  session?: string;
  new?: boolean;
  workspace?: string;
  profile?: string;
  timezone?: string;
  missed?: string;
  id?: string;
  budgetTokens?: number;
  budgetCost?: number;
  budgetPeriod?: string;
  json?: boolean;
}

/** An RFC 3339 time (a one-shot schedule) rather than a cron expression. */
const oneShotTime = /^\d{4}-\d{2}-\d{2}T/;

/** `skein schedule add WHEN PROMPT (--session ID | --new [--workspace DIR])`. */
export async function addSchedule(
  context: CliContext,
  when: string,
  prompt: string,
  options: AddScheduleOptions,
): Promise<ExitCode> {
  if ((options.session === undefined) === (options.new !== true)) {
    throw new CliError("give --session ID or --new (a new session per firing)", exitCodes.usage);
  }
  const missed = options.missed ?? "skip";
  if (missed !== "skip" && missed !== "run_once") {
    throw new CliError(`--missed must be skip or run_once, got ${JSON.stringify(missed)}`, exitCodes.usage);
  }
  const client = await connect(context);
  try {
    const body: CreateScheduleBody = {
      ...(options.id === undefined ? {} : { id: options.id }),
      ...(oneShotTime.test(when) ? { at: when } : { cron: when }),
      ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
      ...(options.session === undefined
        ? {
            new_session: {
              workspace: resolve(context.cwd, options.workspace ?? "."),
              ...(options.profile === undefined ? {} : { profile: options.profile }),
            },
          }
        : { session_id: await resolveSessionId(client, options.session) }),
      prompt,
      missed,
      ...budgetOf(options),
    };
    const schedule = await client.schedules.create(body);
    if (options.json === true) writeLine(context.terminal.out, JSON.stringify(schedule, null, 2));
    else
      writeLine(
        context.terminal.out,
        `added schedule ${schedule.id}, next firing ${schedule.next_fire_at ?? "none"}`,
      );
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** The body's `budget` from `--budget-*` (none without a limit; the daemon checks the period). */
function budgetOf(options: AddScheduleOptions): Pick<CreateScheduleBody, "budget"> {
  const { budgetTokens, budgetCost, budgetPeriod } = options;
  if (budgetTokens === undefined && budgetCost === undefined) {
    if (budgetPeriod !== undefined)
      throw new CliError("--budget-period needs --budget-tokens or --budget-cost", exitCodes.usage);
    return {};
  }
  const budget: NonNullable<CreateScheduleBody["budget"]> = {};
  if (budgetTokens !== undefined) budget.maxTokens = budgetTokens;
  if (budgetCost !== undefined) budget.maxCostUsd = budgetCost;
  if (budgetPeriod === "total" || budgetPeriod === "day") budget.period = budgetPeriod;
  else if (budgetPeriod !== undefined) {
    throw new CliError(
      `--budget-period must be total or day, got ${JSON.stringify(budgetPeriod)}`,
      exitCodes.usage,
    );
  }
  return { budget };
}

/** `skein schedule list`: every schedule, one line each. */
export async function listSchedules(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const schedules = await client.schedules.list();
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(out, JSON.stringify(schedules, null, 2));
      return exitCodes.ok;
    }
    if (schedules.length === 0) writeLine(out, "no schedules (add one with skein schedule add)");
    for (const schedule of schedules) writeLine(out, scheduleLine(schedule));
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** `skein schedule pause ID`. */
export function pauseSchedule(context: CliContext, id: string): Promise<ExitCode> {
  return setPaused(context, id, true);
}

/** `skein schedule resume ID`. */
export function resumeSchedule(context: CliContext, id: string): Promise<ExitCode> {
  return setPaused(context, id, false);
}

/** `skein schedule remove ID`. */
export async function removeSchedule(context: CliContext, id: string): Promise<ExitCode> {
  const client = await connect(context);
  try {
    await client.schedules.remove(id);
    writeLine(context.terminal.out, `removed schedule ${id}`);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

async function setPaused(context: CliContext, id: string, paused: boolean): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const schedule = await client.schedules.setPaused(id, paused);
    writeLine(context.terminal.out, `${paused ? "paused" : "resumed"} schedule ${schedule.id}`);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** One schedule as `list` shows it: id, timing, target, state, next and last firing (and its turn's state). */
function scheduleLine(schedule: Schedule): string {
  const timing =
    schedule.cron === null
      ? `at ${schedule.at}`
      : `"${schedule.cron}"${schedule.timezone === null ? "" : ` ${schedule.timezone}`}`;
  const target =
    schedule.session_id === null
      ? `new session in ${schedule.new_session?.workspace}`
      : `session ${schedule.session_id}`;
  const state = schedule.paused ? "paused" : `next ${schedule.next_fire_at ?? "none"}`;
  const last =
    schedule.last_fired_at === null
      ? ""
      : `, last ${schedule.last_fired_at} (input ${schedule.last_input_id}, turn ${schedule.last_turn?.state ?? "not started"})`;
  return `${schedule.id}  ${timing}  ${target}  ${state}${last}  missed: ${schedule.missed}`;
}
