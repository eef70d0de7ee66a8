/**
 * Schedules: `POST`/`GET /schedules`, `GET`/`PATCH`/`DELETE /schedules/{id}`. A schedule fires a
 * prompt into a session (or a new session each time) on a cron expression or at one time; the
 * scheduler (daemon/schedule/scheduler.ts) fires it, here it is only checked and stored. The
 * listing comes in pages (schedule-list-page.ts): each schedule shown reads its last turn.
 *
 * Boundary rule: a schedule is checked whole (timing, time zone, target session or new-session
 * workspace and profile) before anything is stored: a refused one leaves no row.
 */
import { type Static, Type } from "typebox";
import { defaultSchedulePageSize, maxSchedulePageSize } from "../../api/schedule-page-size.js";
import type {
  CreateScheduleBody,
  PatchScheduleBody,
  Schedule,
  ScheduleList,
  ScheduleListQuery,
} from "../../api/schedules.js";
import {
  CreateScheduleBodySchema,
  PatchScheduleBodySchema,
  ScheduleListQuerySchema,
  ScheduleListSchema,
  ScheduleSchema,
} from "../../api/schemas/schedules.js";
import { DeleteAnswerSchema } from "../../api/schemas/sessions.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { firstFiring, type ScheduleTiming, timingProblem } from "../schedule/schedule-timing.js";
import type { ScheduleRow } from "../storage/schedules-table.js";
import { checkedBudget } from "./budget-body.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { nextScheduleToken, schedulePageOf } from "./schedule-list-page.js";
import { checkWorkspace } from "./workspace-check.js";

const ScheduleParams = Type.Object({ id: Type.String() });

/** How the schedule routes name new schedules and tell the scheduler of a change. */
export interface ScheduleRouteHooks {
  /** The id of a schedule created without one. */
  newId(): string;
  /** A schedule was stored, paused, resumed or removed (after the write). */
  changed(): void;
}

/** Register the schedule routes. */
export function registerScheduleRoutes(
  app: HttpApp,
  services: RouteServices,
  hooks: ScheduleRouteHooks,
): void {
  const { storage } = services;
  const { newId, changed } = hooks;
  registerResource(app, "/schedules", {
    POST: {
      schema: { body: CreateScheduleBodySchema, response: { 201: ScheduleSchema } },
      config: {
        role: "driver",
        doc: {
          summary: "Create a schedule: a prompt fired into a session on a cron expression or at one time",
          description:
            "Every firing is an input with a derived id (see the API guide); nothing is stored if refused.",
        },
      },
      handler: async (request, reply) => {
        const row = await answerWith(() => checkedRow(services, request.body as CreateScheduleBody, newId));
        const stored = await answerWith(() => storage.createSchedule(row));
        if (!stored) throw problem("schedule_exists", `schedule ${row.id} already exists`);
        changed();
        return reply.code(201).header("location", `/schedules/${row.id}`).send(scheduleOf(row, null));
      },
    },
    GET: {
      schema: { querystring: ScheduleListQuerySchema, response: { 200: ScheduleListSchema } },
      config: {
        role: "viewer",
        doc: {
          summary: "A page of schedules, oldest first",
          description:
            `\`limit\` schedules (default ${defaultSchedulePageSize}, at most ${maxSchedulePageSize}); ` +
            "the answer's `next` names the page after (null after the last).",
        },
      },
      handler: async (request): Promise<ScheduleList> => {
        const page = schedulePageOf(request.query as ScheduleListQuery);
        // One row more than the page: whether another page follows, without counting.
        const rows = await answerWith(() => storage.listSchedules({ ...page, limit: page.limit + 1 }));
        const shown = rows.slice(0, page.limit);
        const schedules = await withLastTurns(services, shown);
        return { schedules, next: nextScheduleToken(rows, page.limit) };
      },
    },
  });
  registerResource(app, "/schedules/:id", {
    GET: {
      schema: { params: ScheduleParams, response: { 200: ScheduleSchema } },
      config: { role: "viewer", doc: { summary: "A schedule" } },
      handler: async (request) => withLastTurn(services, await found(services, idOf(request))),
    },
    PATCH: {
      schema: { params: ScheduleParams, body: PatchScheduleBodySchema, response: { 200: ScheduleSchema } },
      config: { role: "driver", doc: { summary: 'Pause (`{"paused": true}`) or resume a schedule' } },
      handler: async (request) => {
        const id = idOf(request);
        const body = request.body as PatchScheduleBody;
        const updated = await answerWith(() => storage.setSchedulePaused(id, body.paused));
        if (!updated) throw notFound(id);
        changed();
        return withLastTurn(services, await found(services, id));
      },
    },
    DELETE: {
      schema: { params: ScheduleParams, response: { 200: DeleteAnswerSchema } },
      config: { role: "driver", doc: { summary: "Remove a schedule (inputs it admitted stay)" } },
      handler: async (request) => {
        const id = idOf(request);
        if (!(await answerWith(() => storage.deleteSchedule(id)))) throw notFound(id);
        changed();
        return { id, deleted: true };
      },
    },
  });
}

function idOf(request: { params: unknown }): string {
  return (request.params as Static<typeof ScheduleParams>).id;
}

function notFound(id: string) {
  return problem("resource_not_found", `schedule ${JSON.stringify(id.slice(0, 128))} not found`);
}

async function found(services: RouteServices, id: string): Promise<ScheduleRow> {
  const row = await answerWith(() => services.storage.getSchedule(id));
  if (row === null) throw notFound(id);
  return row;
}

/** The row a valid body stores; a 400 (or 404 for an unknown session) problem otherwise. */
async function checkedRow(
  services: RouteServices,
  body: CreateScheduleBody,
  newId: () => string,
): Promise<ScheduleRow> {
  const timing = timingOfBody(body);
  const refused = timingProblem(timing);
  if (refused !== null) throw problem("invalid_request", refused);
  if ((body.session_id === undefined) === (body.new_session === undefined)) {
    throw problem("invalid_request", "a schedule needs exactly one of `session_id` and `new_session`");
  }
  if (body.prompt.trim() === "") throw problem("message_empty", "a schedule's prompt needs non-blank text");
  if (body.session_id !== undefined) {
    checkIdShape(body.session_id, "session_id");
    if (!(await services.registry.exists(body.session_id))) {
      throw problem("resource_not_found", `session ${body.session_id} not found`);
    }
  }
  if (body.new_session !== undefined) {
    checkWorkspace(body.new_session.workspace, services.workspaceProblem);
    // Throws a 400 problem for a profile that is not configured.
    services.providerDefaults(body.new_session.profile ?? null);
  }
  const createdAt = services.now();
  return {
    id: body.id ?? newId(),
    cron: timing.kind === "cron" ? timing.cron : null,
    at: timing.kind === "at" ? timing.at : null,
    timezone: timing.kind === "cron" ? timing.timezone : null,
    sessionId: body.session_id ?? null,
    newSession:
      body.new_session === undefined
        ? null
        : { workspace: body.new_session.workspace, profile: body.new_session.profile ?? null },
    prompt: body.prompt,
    missed: body.missed,
    paused: false,
    nextFireAt: firstFiring(timing, createdAt),
    lastFiredAt: null,
    lastInputId: null,
    lastSessionId: null,
    createdAt,
    budget: body.budget === undefined ? null : checkedBudget(body.budget),
  };
}

function timingOfBody(body: CreateScheduleBody): ScheduleTiming {
  if ((body.cron === undefined) === (body.at === undefined)) {
    throw problem("invalid_request", "a schedule needs exactly one of `cron` and `at`");
  }
  if (body.at !== undefined) {
    if (body.timezone !== undefined) {
      throw problem("invalid_request", "`timezone` applies to `cron` only (`at` carries its own offset)");
    }
    const at = Date.parse(body.at);
    // Firing ids carry the time as a UUIDv7 timestamp: 1970 onwards.
    if (!(at >= 0)) throw problem("invalid_request", "`at` must lie after 1970-01-01T00:00:00Z");
    return { kind: "at", at };
  }
  return { kind: "cron", cron: body.cron ?? "", timezone: body.timezone ?? null };
}

/** A stored schedule on the wire, with the turn of its last firing (its input's receipt's). */
async function withLastTurn(services: RouteServices, row: ScheduleRow): Promise<Schedule> {
  const [schedule] = await withLastTurns(services, [row]);
  return schedule!;
}

/** `withLastTurn` for a page of schedules, their receipts read at once. */
async function withLastTurns(services: RouteServices, rows: readonly ScheduleRow[]): Promise<Schedule[]> {
  const fired = rows.flatMap((row) =>
    row.lastSessionId === null || row.lastInputId === null
      ? []
      : [{ sessionId: row.lastSessionId, inputId: row.lastInputId }],
  );
  const receipts = await answerWith(() => services.storage.getReceipts(fired));
  const turnOf = new Map(fired.map((ref, index) => [ref.inputId, receipts[index]?.turn ?? null]));
  return rows.map((row) =>
    scheduleOf(row, row.lastInputId === null ? null : (turnOf.get(row.lastInputId) ?? null)),
  );
}

function scheduleOf(row: ScheduleRow, lastTurn: Schedule["last_turn"]): Schedule {
  const time = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  return {
    id: row.id,
    cron: row.cron,
    at: time(row.at),
    timezone: row.timezone,
    session_id: row.sessionId,
    new_session: row.newSession,
    prompt: row.prompt,
    missed: row.missed,
    paused: row.paused,
    next_fire_at: time(row.nextFireAt),
    last_fired_at: time(row.lastFiredAt),
    budget: row.budget,
    last_input_id: row.lastInputId,
    last_session_id: row.lastSessionId,
    last_turn: lastTurn,
    created_at: new Date(row.createdAt).toISOString(),
  };
}
