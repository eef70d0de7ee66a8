/**
 * Sessions: `GET /sessions` (the list, or its SSE stream), and `PUT` (create or fork), `GET`
 * (snapshot or SSE stream) and `DELETE` on `/sessions/{id}`.
 *
 * Boundary rule: validation and translation only; the registry and the actors do the work.
 * A stream's first batch (and its snapshot, on a reset) is built before the reply is hijacked,
 * so a storage failure is still answered as problem JSON with no snapshot, generation or cursor.
 */
import { statSync } from "node:fs";
import { isAbsolute } from "node:path";
import { Type } from "typebox";
import type {
  CreateSessionBody,
  DeleteAnswer,
  ForkSessionBody,
  NewSessionBody,
  SessionList,
  SessionListQuery,
  SessionQuery,
} from "../../api/sessions.js";
import type { StreamCursor, StreamResumeQuery } from "../../api/stream-cursor.js";
import { StreamCursorError } from "../errors.js";
import { type HttpApp, wantsEventStream } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { wireSchema } from "../http/wire-schema.js";
import type { SessionRegistry } from "../session/session-registry.js";
import type { SessionListFilter } from "../storage/sessions-table.js";
import { parseStreamCursor, type StreamCursorQuery } from "../stream/cursor.js";
import { serveSessionStream } from "../stream/sse-stream.js";
import { checkIdShape, checkNewId } from "./client-id.js";
import { explainUnknown, rememberRefusal } from "./creation-rejection.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

const NewSession = wireSchema<{ kind: "new" } & NewSessionBody>()(
  Type.Object(
    {
      kind: Type.Literal("new"),
      workspace: Type.String({ minLength: 1, maxLength: 4096 }),
      name: Type.Optional(Type.String({ maxLength: 256 })),
      provider_profile: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
      model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      system_prompt: Type.Optional(Type.String({ maxLength: 65_536 })),
    },
    { additionalProperties: false },
  ),
);

const ForkSession = wireSchema<{ kind: "fork" } & ForkSessionBody>()(
  Type.Object(
    {
      kind: Type.Literal("fork"),
      source_session_id: Type.String(),
      checkpoint_id: Type.String({ minLength: 1, maxLength: 128 }),
      name: Type.Optional(Type.String({ maxLength: 256 })),
    },
    { additionalProperties: false },
  ),
);

const SessionParams = Type.Object({ id: Type.String() });

type ListQuery = SessionListQuery & StreamResumeQuery;

const ListQuerySchema = wireSchema<ListQuery>()(
  Type.Object(
    {
      scope: Type.Optional(Type.Union([Type.Literal("all"), Type.Literal("top")])),
      parent_id: Type.Optional(Type.String()),
      after_generation: Type.Optional(Type.String()),
      after_seq: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

const SessionQuerySchema = wireSchema<SessionQuery & StreamResumeQuery>()(
  Type.Object(
    {
      tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })),
      after_generation: Type.Optional(Type.String()),
      after_seq: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

/** Register the session routes. */
export function registerSessionRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;

  registerResource(app, "/sessions", {
    GET: {
      schema: { querystring: ListQuerySchema },
      config: { eventStream: true },
      handler: async (request, reply) => {
        const query = request.query as ListQuery;
        const filter = listFilter(query);
        if (!wantsEventStream(request)) {
          rejectReplayParameters(query);
          return answerWith(async (): Promise<SessionList> => ({ items: await registry.list(filter) }));
        }
        const after = streamCursorOf(query, request.headers["last-event-id"]);
        const opened = await answerWith(() => registry.openList(filter, after));
        reply.hijack();
        serveSessionStream(reply.raw, {
          feed: opened.feed,
          first: opened.first,
          ...services.streamOptions,
          onClose: () => opened.closed(),
        });
        return reply;
      },
    },
  });

  registerResource(app, "/sessions/:id", {
    PUT: {
      schema: { params: SessionParams, body: Type.Union([NewSession, ForkSession]) },
      config: { startsWork: true },
      handler: async (request, reply) => {
        const { id } = request.params as { id: string };
        const condition = request.headers["if-none-match"];
        if (condition === undefined) {
          throw problem("precondition_required", "creating a session needs `If-None-Match: *`");
        }
        if (condition.trim() !== "*") throw problem("invalid_request", "If-None-Match must be `*`");
        checkNewId(id, "session id", services.now());
        const body = request.body as CreateSessionBody;
        const snapshot = await answerWith(async () => {
          if (await registry.exists(id)) {
            throw problem("precondition_failed", `session ${id} already exists`);
          }
          const actor = await rememberRefusal(services.storage, id, services.now(), () =>
            body.kind === "new" ? createNew(registry, services, id, body) : fork(registry, id, body),
          );
          return actor.snapshot();
        });
        return reply.code(201).header("location", `/sessions/${id}`).send(snapshot);
      },
    },
    GET: {
      schema: { params: SessionParams, querystring: SessionQuerySchema },
      config: { eventStream: true },
      handler: async (request, reply) => {
        const { id } = request.params as { id: string };
        checkIdShape(id, "session id");
        const query = request.query as SessionQuery & StreamResumeQuery;
        if (!wantsEventStream(request)) {
          rejectReplayParameters(query);
          return answerWith(() =>
            explainUnknown(services.storage, id, services.now(), () =>
              registry.withActor(id, (actor) => actor.snapshot(query.tail)),
            ),
          );
        }
        const after = streamCursorOf(query, request.headers["last-event-id"]);
        const { actor, first } = await answerWith(() =>
          explainUnknown(services.storage, id, services.now(), () =>
            registry.withActor(id, async (actor) => ({
              actor,
              first: await actor.openStream(after, query.tail),
            })),
          ),
        );
        reply.hijack();
        serveSessionStream(reply.raw, { feed: actor.feed, first, ...services.streamOptions });
        return reply;
      },
    },
    DELETE: {
      schema: { params: SessionParams },
      handler: async (request) => {
        const { id } = request.params as { id: string };
        checkIdShape(id, "session id");
        return answerWith(async (): Promise<DeleteAnswer> => {
          await registry.withActor(id, (actor) => actor.delete());
          registry.forget(id);
          return { id, deleted: true };
        });
      },
    },
  });
}

/** The listing a `GET /sessions` asks for: `scope` all (default) or top, or `parent_id`'s forks. */
function listFilter(query: SessionListQuery): SessionListFilter {
  if (query.parent_id !== undefined) {
    if (query.scope !== undefined) throw problem("invalid_request", "give scope or parent_id, not both");
    checkIdShape(query.parent_id, "parent_id");
    return { kind: "children", parentId: query.parent_id };
  }
  return { kind: query.scope ?? "all" };
}

function rejectReplayParameters(query: StreamResumeQuery): void {
  if (query.after_generation !== undefined || query.after_seq !== undefined) {
    throw problem("invalid_request", "replay parameters require Accept: text/event-stream");
  }
}

/** Where a stream request resumes (null: an initial attach); a malformed cursor is a 400. */
function streamCursorOf(query: StreamCursorQuery, lastEventId: unknown): StreamCursor | null {
  try {
    return parseStreamCursor(query, lastEventId);
  } catch (error) {
    if (error instanceof StreamCursorError) throw problem("invalid_request", error.detail);
    throw error;
  }
}

async function createNew(
  registry: SessionRegistry,
  services: RouteServices,
  id: string,
  body: NewSessionBody,
) {
  if (!isAbsolute(body.workspace)) throw problem("invalid_request", "workspace must be an absolute path");
  let isDirectory = false;
  try {
    isDirectory = statSync(body.workspace).isDirectory();
  } catch {
    // reported below
  }
  if (!isDirectory)
    throw problem("invalid_request", `workspace ${body.workspace} is not an existing directory`);
  const refused = services.workspaceProblem(body.workspace);
  if (refused !== null) throw problem("invalid_request", refused);
  const profile = services.providerDefaults(body.provider_profile ?? null);
  return registry.create({
    id,
    workspace: body.workspace,
    name: body.name ?? null,
    providerProfile: profile.name,
    model: body.model ?? profile.model,
    systemPrompt: body.system_prompt ?? services.defaultSystemPrompt(body.workspace),
  });
}

async function fork(registry: SessionRegistry, id: string, body: ForkSessionBody) {
  checkIdShape(body.source_session_id, "source_session_id");
  return registry.fork({
    id,
    sourceSessionId: body.source_session_id,
    checkpointId: body.checkpoint_id,
    name: body.name ?? null,
  });
}
