/**
 * Named API tokens as the HTTP API shows them (`POST`/`GET /tokens`, `DELETE /tokens/{name}`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/tokens.ts).
 */
export type { CreatedToken, CreateTokenBody, TokenInfo, TokenList, TokenRevoked } from "./schemas/tokens.js";
