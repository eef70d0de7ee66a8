/** `PUT /sessions/:id`: create a session, new (with its first input, if sent) or forked at a checkpoint. */
import type { FastifyRequest } from "fastify";
import type { FirstInput } from "../../api/inputs.js";
import { CreatedSessionSchema } from "../../api/schemas/created-session.js";
import { CreateSessionBodySchema } from "../../api/schemas/session-creation.js";
import type { CreatedSession } from "../../api/session-creation.js";
import type { CreateSessionBody, ForkSessionBody, NewSessionBody } from "../../api/sessions.js";
import type { FirstInputRequest } from "../actor/first-input.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { SessionExistsError } from "../errors.js";
import { problem } from "../http/problem.js";
import type { ResourceRoute } from "../http/resource.js";
import { inputBodyLimit } from "../http/route-config.js";
import { withInstructions } from "../session/project-instructions.js";
import { checkIdShape, checkNewId } from "./client-id.js";
import { rememberRefusal } from "./creation-rejection.js";
import { answerWith } from "./daemon-problem.js";
import { checkedIntent, inputSourceOf, traceAdmission } from "./input-body.js";
import type { RouteServices } from "./route-services.js";
import { SessionPathParams } from "./session-path.js";
import { checkWorkspace } from "./workspace-check.js";

/** The `PUT` of `/sessions/:id` (`If-None-Match: *` required). */
export function createSessionRoute(services: RouteServices): ResourceRoute {
  const { registry } = services;
  return {
    schema: {
      params: SessionPathParams,
      body: CreateSessionBodySchema,
      response: { 201: CreatedSessionSchema },
    },
    // A first input may be as large as the input route's.
    bodyLimit: inputBodyLimit,
    config: {
      role: "driver",
      startsWork: true,
      doc: {
        summary: "Create a session, new or forked at a checkpoint",
        description:
          "A new session's `input` (optional) is its first input, admitted and its turn started in the creation's own commit; the 201 adds its receipt as `input`.",
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
      // A first input is checked as its own route checks it, before anything (a refusal of it is
      // about the input, not the session: not remembered as a refused creation).
      const first = body.kind === "new" ? firstInputOf(request, body.input, services.now()) : undefined;
      const create = () =>
        answerWith(async (): Promise<CreatedSession> => {
          const created = await rememberRefusal(services.storage, id, services.now(), () =>
            existingFirst(registry, id, () =>
              body.kind === "new" ? createNew(registry, services, id, body, first) : fork(registry, id, body),
            ),
          );
          const snapshot = await created.snapshot();
          const shell = services.shell;
          if (created.firstInput === undefined) return { ...snapshot, shell };
          return { ...snapshot, input: await created.firstInput(), shell };
        });
      // A first input's admission is traced as its own route traces one.
      const answer =
        first === undefined
          ? await create()
          : await traceAdmission(
              services.tracing,
              request,
              { sessionId: id, inputId: first.id, status: 201 },
              create,
            );
      return reply.code(201).header("location", `/sessions/${id}`).send(answer);
    },
  };
}

/**
 * Run the creation of session `id`; when it fails and `id` exists, answer 412 instead (an existing
 * id is what the request gets wrong first, and it is no refusal to remember). Asked only on a
 * failure: a creation that succeeds has no row to find, and one racing a taken id fails its
 * INSERT with the same 412 (`SessionExistsError`), so a success costs no read of the row.
 */
async function existingFirst<T>(registry: SessionRegistry, id: string, create: () => Promise<T>): Promise<T> {
  try {
    return await create();
  } catch (error) {
    if (error instanceof SessionExistsError) throw error;
    // A failing read (storage unavailable) leaves the creation's own error to answer.
    const exists = await registry.exists(id).catch(() => false);
    if (exists) throw problem("precondition_failed", `session ${id} already exists`);
    throw error;
  }
}

/** Create a new session `id` as `PUT /sessions/{id}` with `body` would (checks included). */
export async function createNewSession(
  services: RouteServices,
  id: string,
  body: { kind: "new" } & NewSessionBody,
): Promise<void> {
  await createNew(services.registry, services, id, body);
}

/** A new session's first input, checked as `PUT /sessions/{sid}/inputs/{iid}` checks one. */
function firstInputOf(
  request: FastifyRequest,
  input: FirstInput | undefined,
  now: number,
): FirstInputRequest | undefined {
  if (input === undefined) return undefined;
  checkNewId(input.id, "input id", now);
  const { id, ...body } = input;
  return { id, intent: checkedIntent(body), source: inputSourceOf(request, body) };
}

async function createNew(
  registry: SessionRegistry,
  services: RouteServices,
  id: string,
  body: { kind: "new" } & NewSessionBody,
  firstInput?: FirstInputRequest,
) {
  // `submitted` is the session as asked for; its first input is kept as an input.
  const { input: _input, ...submitted } = body;
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
    creationRequest: submitted,
    ...(firstInput === undefined ? {} : { firstInput }),
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
