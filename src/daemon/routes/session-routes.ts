import { CreateSessionBodySchema } from "../../api/schemas/session-creation.js";
import { SessionStreamFrameSchema } from "../../api/schemas/session-events.js";
import { SessionListStreamFrameSchema } from "../../api/schemas/session-list-events.js";
import { SessionSettingsBodySchema, SessionSettingsSchema } from "../../api/schemas/session-settings.js";
import { SessionSnapshotSchema } from "../../api/schemas/session-snapshot.js";
import {
  DeleteAnswerSchema,
  ListQuerySchema,
  SessionListSchema,
  SessionReadQuerySchema,
} from "../../api/schemas/sessions.js";
import type { SessionSettingsBody } from "../../api/session-settings.js";
import type {
  CreateSessionBody,
  DeleteAnswer,
  ForkSessionBody,
  ListQuery,
  NewSessionBody,
  SessionList,
  SessionListQuery,
  SessionReadQuery,
} from "../../api/sessions.js";
import type { StreamCursor, StreamResumeQuery } from "../../api/stream-cursor.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { StreamCursorError } from "../errors.js";
import { type HttpApp, wantsEventStream } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { withInstructions } from "../session/project-instructions.js";
import type { SessionListFilter } from "../storage/sessions-table.js";
import { parseStreamCursor, type StreamCursorQuery } from "../stream/cursor.js";
import { serveSessionStream } from "../stream/sse-stream.js";
import { checkIdShape, checkNewId } from "./client-id.js";
import { explainUnknown, rememberRefusal } from "./creation-rejection.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";
import { SessionPathParams, sessionIdOf } from "./session-path.js";
import { checkWorkspace } from "./workspace-check.js";

const lastEventId = {
  name: "Last-Event-ID",
  description:
    "`<generation>.<sequence>`: resume the stream after it (instead of after_generation/after_seq)",
};

/** Register the session routes. */
export function registerSessionRoutes(app: HttpApp, services: RouteServices): void {
  const { registry } = services;

  registerResource(app, "/sessions", {
    GET: {
      schema: {
        querystring: ListQuerySchema,
        response: {
          200: {
            description: "the listing, or (Accept: text/event-stream) its stream",
            content: {
              "application/json": { schema: SessionListSchema },
              "text/event-stream": { schema: SessionListStreamFrameSchema },
            },
          },
        },
      },
      config: {
        eventStream: true,
        doc: {
          summary: "List sessions (newest activity first), or stream the listing",
          headers: [lastEventId],
        },
      },
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
      schema: {
        params: SessionPathParams,
        body: CreateSessionBodySchema,
        response: { 201: SessionSnapshotSchema },
      },
      config: {
        startsWork: true,
        doc: {
          summary: "Create a session, new or forked at a checkpoint",
          headers: [{ name: "If-None-Match", description: "must be `*`", required: true }],
        },
      },
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
      schema: {
        params: SessionPathParams,
        querystring: SessionReadQuerySchema,
        response: {
          200: {
            description: "the snapshot, or (Accept: text/event-stream) the session's stream",
            content: {
              "application/json": { schema: SessionSnapshotSchema },
              "text/event-stream": { schema: SessionStreamFrameSchema },
            },
          },
        },
      },
      config: {
        eventStream: true,
        doc: { summary: "A session's snapshot, or its event stream", headers: [lastEventId] },
      },
      handler: async (request, reply) => {
        const id = sessionIdOf(request);
        const query = request.query as SessionReadQuery;
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
    PATCH: {
      schema: {
        params: SessionPathParams,
        body: SessionSettingsBodySchema,
        response: { 200: SessionSettingsSchema },
      },
      config: {
        doc: {
          summary: "Change a session's provider profile, model or model parameters from its next request on",
        },
      },
      handler: async (request) => {
        const id = sessionIdOf(request);
        const body = request.body as SessionSettingsBody;
        return answerWith(() => registry.withActor(id, (actor) => actor.changeSettings(body)));
      },
    },
    DELETE: {
      schema: { params: SessionPathParams, response: { 200: DeleteAnswerSchema } },
      config: { doc: { summary: "Delete a session and its whole history (409 while a turn runs)" } },
      handler: async (request) => {
        const id = sessionIdOf(request);
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
  body: { kind: "new" } & NewSessionBody,
) {
  checkWorkspace(body.workspace, services.workspaceProblem);
  const profile = services.providerDefaults(body.provider_profile ?? null);
  const mcpServers = mcpSelection(body.mcp_servers, services.mcpServerNames());
  const systemPrompt = body.system_prompt ?? services.defaultSystemPrompt(body.workspace);
  const instructions = services.projectInstructions(body.workspace);
  return registry.create({
    id,
    workspace: body.workspace,
    name: body.name ?? null,
    providerProfile: profile.name,
    model: body.model ?? profile.model,
    systemPrompt: instructions === null ? systemPrompt : withInstructions(systemPrompt, instructions),
    mcpServers,
    instructions:
      instructions === null
        ? null
        : { path: instructions.path, bytes: instructions.bytes, truncated: instructions.truncated },
    ...(body.request_config === undefined ? {} : { requestConfig: body.request_config }),
    approvalPolicy: body.approval_policy ?? null,
    // As accepted: validation neither coerces nor adds nor removes a field.
    creationRequest: body,
  });
}

/** The MCP servers a new session uses: those it names (each must be configured), else every configured one. */
function mcpSelection(requested: readonly string[] | undefined, configured: readonly string[]): string[] {
  if (requested === undefined) return [...configured];
  const unknown = requested.filter((name) => !configured.includes(name));
  if (unknown.length > 0) {
    throw problem(
      "invalid_request",
      `MCP server ${unknown.map((name) => `"${name}"`).join(", ")} is not configured` +
        (configured.length > 0
          ? ` (configured: ${configured.join(", ")})`
          : " (none is; see `skein mcp add`)"),
    );
  }
  return [...new Set(requested)];
}

async function fork(registry: SessionRegistry, id: string, body: { kind: "fork" } & ForkSessionBody) {
  checkIdShape(body.source_session_id, "source_session_id");
  return registry.fork({
    id,
    sourceSessionId: body.source_session_id,
    checkpointId: body.checkpoint_id,
    name: body.name ?? null,
    creationRequest: body,
  });
}
