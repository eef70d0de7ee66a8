/**
 * `POST /providers/{name}/test` on the wire, as TypeBox schemas and the types derived from
 * them: one tiny request to a configured provider, sent by the daemon with its own environment
 * (where `apiKeyEnv` variables are read), and what came of it.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, NullableString, namedObject } from "./parts.js";

/** Body of `POST /providers/{name}/test` (`{}` takes the defaults). */
export const ProviderTestBodySchema = closedObject({
  /** Give up after this long (1..300000 ms, default 30000). */
  timeout_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 300_000 })),
});
export type ProviderTestBody = Static<typeof ProviderTestBodySchema>;

/** What came of the request: the provider's answer, or why there was none. */
const ProviderTestResultSchema = Type.Union([
  closedObject({
    ok: Type.Literal(true),
    /** The answer's text, trimmed, at most 200 characters. */
    text: Type.String(),
    usage: Type.Union([
      Type.Null(),
      closedObject({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }),
    ]),
  }),
  closedObject({
    ok: Type.Literal(false),
    /**
     * `http`, `api`, `network`, `protocol`, `timeout` (no answer in time) or `config` (e.g. the
     * key variable is not set in the daemon's environment).
     */
    kind: Type.String(),
    /** The provider's HTTP status, when it answered with one. */
    status: Type.Union([Type.Integer(), Type.Null()]),
    message: Type.String(),
  }),
]);
export type ProviderTestResult = Static<typeof ProviderTestResultSchema>;

/** The 200 answer: the test ran, whether the provider answered or not. */
export const ProviderTestAnswerSchema = namedObject("ProviderTestAnswer", {
  profile: Type.String(),
  protocol: Type.String(),
  model: Type.String(),
  base_url: Type.String(),
  /** The variable the daemon read the API key from, when the profile names one. */
  api_key_env: NullableString,
  /**
   * Where the daemon found the API key (`config`: the profile's own `apiKey`; `env`: the
   * variable `apiKeyEnv` names; `secrets_file`: stored by `skein auth set`; null: none
   * found) and each place it looked, in order, with what was there; never the key.
   */
  api_key: closedObject({
    source: Type.Union([
      Type.Literal("config"),
      Type.Literal("env"),
      Type.Literal("secrets_file"),
      Type.Null(),
    ]),
    looked: Type.Array(Type.String()),
  }),
  /** How long the request took, in ms. */
  elapsed_ms: Type.Number({ minimum: 0 }),
  result: ProviderTestResultSchema,
});
export type ProviderTestAnswer = Static<typeof ProviderTestAnswerSchema>;
