/**
 * Named API tokens: `POST /tokens` (create: the secret is answered once), `GET /tokens` (list,
 * never a secret) and `DELETE /tokens/{name}` (revoke: the next request with it is refused, on
 * every node). Admin only, like every route that changes who may do what.
 *
 * Boundary rule: checks and storage; the ingress hook looks tokens up (request-authority.ts).
 */
import { type Static, Type } from "typebox";
import { bootstrapTokenName } from "../../api/roles.js";
import {
  CreatedTokenSchema,
  CreateTokenBodySchema,
  TokenListSchema,
  TokenRevokedSchema,
} from "../../api/schemas/tokens.js";
import type { CreatedToken, CreateTokenBody, TokenInfo, TokenRevoked } from "../../api/tokens.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { newTokenSecret, secretDigest } from "../http/token-secret.js";
import type { ApiTokenStore } from "../storage/api-token-store.js";
import type { ApiTokenRow } from "../storage/api-tokens-table.js";
import { checkIdShape } from "./client-id.js";
import { answerWith } from "./daemon-problem.js";

const TokenParams = Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) });

/** Register the token routes on `tokens`. */
export function registerTokenRoutes(app: HttpApp, tokens: ApiTokenStore, now: () => number): void {
  registerResource(app, "/tokens", {
    POST: {
      schema: { body: CreateTokenBodySchema, response: { 201: CreatedTokenSchema } },
      config: {
        role: "admin",
        doc: {
          summary: "Create a named API token with a role (its secret is answered this once)",
          description: "Only the SHA-256 digest of the secret is kept; a taken name is 409 token_exists.",
        },
      },
      handler: async (request, reply) => {
        const body = request.body as CreateTokenBody;
        if (body.name === bootstrapTokenName)
          throw problem("invalid_request", `the name ${bootstrapTokenName} is the daemon's own token's`);
        if (body.session_id !== undefined) checkIdShape(body.session_id, "session_id");
        const secret = newTokenSecret();
        const row: ApiTokenRow = {
          name: body.name,
          digest: secretDigest(secret),
          role: body.role,
          sessionId: body.session_id ?? null,
          createdAt: now(),
        };
        if (!(await answerWith(() => tokens.create(row))))
          throw problem(
            "token_exists",
            `a token or device named ${body.name} exists; revoke it first or pick another name`,
          );
        const created: CreatedToken = { ...infoOf(row), token: secret };
        return reply.code(201).send(created);
      },
    },
    GET: {
      schema: { response: { 200: TokenListSchema } },
      config: {
        role: "admin",
        doc: { summary: "The named API tokens (names, roles, sessions; never a secret)" },
      },
      handler: async () => ({ tokens: (await answerWith(() => tokens.list())).map(infoOf) }),
    },
  });
  registerResource(app, "/tokens/:name", {
    DELETE: {
      schema: { params: TokenParams, response: { 200: TokenRevokedSchema } },
      config: {
        role: "admin",
        doc: { summary: "Revoke a named API token (refused from its next request on, on every node)" },
      },
      handler: async (request): Promise<TokenRevoked> => {
        const { name } = request.params as Static<typeof TokenParams>;
        if (!(await answerWith(() => tokens.remove(name))))
          throw problem("resource_not_found", `there is no token named ${name}`);
        return { name, revoked: true };
      },
    },
  });
}

function infoOf(row: ApiTokenRow): TokenInfo {
  return {
    name: row.name,
    role: row.role,
    session_id: row.sessionId,
    created_at: new Date(row.createdAt).toISOString(),
  };
}
