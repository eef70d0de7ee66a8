/**
 * The request schemas of a session's settings: the `request_config` of a creation and the body
 * of `PATCH /sessions/{id}` (a merge patch whose nulls remove), tied to the contract's types.
 *
 * Boundary rule: schemas only; ranges are what any provider could accept (the capability table
 * decides what reaches a given model).
 */
import { Type } from "typebox";
import type { RequestConfigBody, SessionSettingsBody } from "../../api/session-settings.js";
import { wireSchema } from "../http/wire-schema.js";

const Effort = Type.Union([
  Type.Literal("minimal"),
  Type.Literal("low"),
  Type.Literal("medium"),
  Type.Literal("high"),
  Type.Literal("xhigh"),
]);

const Reasoning = Type.Union([
  Type.Object({ effort: Effort }, { additionalProperties: false }),
  Type.Object(
    { budget_tokens: Type.Integer({ minimum: 0, maximum: 1_000_000 }) },
    { additionalProperties: false },
  ),
]);

const fields = {
  max_tokens: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  temperature: Type.Number({ minimum: 0, maximum: 2 }),
  top_p: Type.Number({ minimum: 0, maximum: 1 }),
  top_k: Type.Integer({ minimum: 1, maximum: 100_000 }),
  reasoning: Reasoning,
};

/** A session's own model parameters (creation's `request_config`). */
export const RequestConfigSchema = wireSchema<RequestConfigBody>()(
  Type.Object(
    {
      max_tokens: Type.Optional(fields.max_tokens),
      temperature: Type.Optional(fields.temperature),
      top_p: Type.Optional(fields.top_p),
      top_k: Type.Optional(fields.top_k),
      reasoning: Type.Optional(fields.reasoning),
    },
    { additionalProperties: false },
  ),
);

/** `PATCH /sessions/{id}`. */
export const SessionSettingsSchema = wireSchema<SessionSettingsBody>()(
  Type.Object(
    {
      provider_profile: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: 128 }), Type.Null()]),
      ),
      model: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 256 }), Type.Null()])),
      request_config: Type.Optional(
        Type.Union([
          Type.Object(
            {
              max_tokens: Type.Optional(Type.Union([fields.max_tokens, Type.Null()])),
              temperature: Type.Optional(Type.Union([fields.temperature, Type.Null()])),
              top_p: Type.Optional(Type.Union([fields.top_p, Type.Null()])),
              top_k: Type.Optional(Type.Union([fields.top_k, Type.Null()])),
              reasoning: Type.Optional(Type.Union([fields.reasoning, Type.Null()])),
            },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
      ),
    },
    { additionalProperties: false },
  ),
);
