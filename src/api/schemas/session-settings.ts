/**
 * A session's provider, model and model parameters on the wire, as TypeBox schemas and the types
 * derived from them: how a client sets them (at creation and with `PATCH /sessions/{id}`) and
 * how a snapshot shows them.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema, but for
 * the model parameters themselves, which are the log's (`RequestConfigBody`, src/model) and are
 * checked against it (`matchesModel`). Request ranges are what any provider could accept (the
 * capability table decides what reaches a given model).
 */
import { type Static, Type } from "typebox";
import type { RequestConfig } from "../../model/request-config.js";
import { matchesModel } from "./matches-model.js";
import { closedObject, literalUnion, NullableString, namedObject } from "./parts.js";

/**
 * A session's own model parameters, in the log's shape: `max_tokens` (output limit),
 * `temperature`, `top_p`, `top_k`, and `reasoning` as `{"effort": "minimal"|"low"|"medium"|
 * "high"|"xhigh"}` or `{"budget_tokens": N}`. Each field set here wins over the profile's default;
 * which ones reach the provider is the capability table's decision (docs/providers.md).
 */
export type RequestConfigBody = Omit<RequestConfig, "stop_sequences">;

const Effort = literalUnion("minimal", "low", "medium", "high", "xhigh");

const Reasoning = Type.Union([
  closedObject({ effort: Effort }),
  closedObject({ budget_tokens: Type.Integer({ minimum: 0, maximum: 1_000_000 }) }),
]);

const fields = {
  max_tokens: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  temperature: Type.Number({ minimum: 0, maximum: 2 }),
  top_p: Type.Number({ minimum: 0, maximum: 1 }),
  top_k: Type.Integer({ minimum: 1, maximum: 100_000 }),
  reasoning: Reasoning,
};

/** A session's own model parameters as a request sets them (creation's `request_config`). */
export const RequestConfigSchema = matchesModel<RequestConfigBody>()(
  closedObject({
    max_tokens: Type.Optional(fields.max_tokens),
    temperature: Type.Optional(fields.temperature),
    top_p: Type.Optional(fields.top_p),
    top_k: Type.Optional(fields.top_k),
    reasoning: Type.Optional(fields.reasoning),
  }),
);

/**
 * `PATCH /sessions/{id}`: change the provider profile, the model or the model parameters of a
 * session from its next model request on. `null` goes back to the default (the active profile,
 * the profile's model, no own parameter); `request_config` is a merge patch (a field set to null
 * is removed, an absent one kept).
 */
export const SessionSettingsBodySchema = closedObject({
  provider_profile: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()])),
  model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()])),
  request_config: Type.Optional(
    Type.Union([
      closedObject({
        max_tokens: Type.Optional(Type.Union([fields.max_tokens, Type.Null()])),
        temperature: Type.Optional(Type.Union([fields.temperature, Type.Null()])),
        top_p: Type.Optional(Type.Union([fields.top_p, Type.Null()])),
        top_k: Type.Optional(Type.Union([fields.top_k, Type.Null()])),
        reasoning: Type.Optional(Type.Union([fields.reasoning, Type.Null()])),
      }),
      Type.Null(),
    ]),
  ),
});
export type SessionSettingsBody = Static<typeof SessionSettingsBodySchema>;

/** The model parameters as an answer shows them (what was accepted, so no ranges). */
const RequestConfigAnswer = matchesModel<RequestConfigBody>()(
  closedObject({
    max_tokens: Type.Optional(Type.Integer()),
    temperature: Type.Optional(Type.Number()),
    top_p: Type.Optional(Type.Number()),
    top_k: Type.Optional(Type.Integer()),
    reasoning: Type.Optional(
      Type.Union([closedObject({ effort: Effort }), closedObject({ budget_tokens: Type.Integer() })]),
    ),
  }),
);

/** What a session runs with: its own settings and the values its next request will use. */
export const SessionSettingsSchema = namedObject("SessionSettings", {
  provider_profile: NullableString,
  model: NullableString,
  request_config: RequestConfigAnswer,
  /** Null when no provider is configured (every turn fails saying how to add one). */
  effective: Type.Union([
    Type.Null(),
    closedObject({
      provider_profile: Type.String(),
      protocol: Type.String(),
      model: Type.String(),
      /** The session's parameters over the profile's defaults (before the capability table filters them). */
      request_config: RequestConfigAnswer,
    }),
  ]),
});
export type SessionSettings = Static<typeof SessionSettingsSchema>;
