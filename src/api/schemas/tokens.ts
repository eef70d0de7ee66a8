/**
 * Named API tokens on the wire: the body of `POST /tokens`, the token it answers (with its secret,
 * shown once) and the entries of `GET /tokens` (never with a secret: only digests are kept).
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

/** A token's (or device's) name: letters, digits, `.`, `_`, `-`, starting with a letter or digit (not `bootstrap`). */
export const tokenNamePattern = "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$";

export const RoleSchema = literalUnion("viewer", "approver", "driver", "admin");

/** Body of `POST /tokens`. */
export const CreateTokenBodySchema = closedObject({
  name: Type.String({ pattern: tokenNamePattern }),
  role: RoleSchema,
  /** Only this session (and its entry of the listing) may be reached with the token. */
  session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
});
export type CreateTokenBody = Static<typeof CreateTokenBodySchema>;

/** What a token's (or a device's) answers say of it. */
export const tokenFields = {
  name: Type.String(),
  role: RoleSchema,
  session_id: NullableString,
  created_at: Time,
};

/** A token as `GET /tokens` lists it. */
const TokenInfoSchema = namedObject("TokenInfo", tokenFields);
export type TokenInfo = Static<typeof TokenInfoSchema>;

/** The answer of `POST /tokens`: the token's secret, shown this once. */
export const CreatedTokenSchema = namedObject("CreatedToken", {
  ...tokenFields,
  token: Type.String({ description: "the secret to send as `Authorization: Bearer`; never shown again" }),
});
export type CreatedToken = Static<typeof CreatedTokenSchema>;

/** The answer of `GET /tokens`. */
export const TokenListSchema = namedObject("TokenList", { tokens: Type.Array(TokenInfoSchema) });
export type TokenList = Static<typeof TokenListSchema>;

/** The answer of `DELETE /tokens/{name}`. */
export const TokenRevokedSchema = namedObject("TokenRevoked", {
  name: Type.String(),
  revoked: Type.Literal(true),
});
export type TokenRevoked = Static<typeof TokenRevokedSchema>;
