/**
 * Answer schemas of history: entries, their parts, pages and content slices. Each is checked at
 * compile time to be exactly its type in src/api (wireSchema), so the OpenAPI document cannot
 * drift from what the daemon sends.
 */
import { Type } from "typebox";
import type { ContentSlice, HistoryEntry, HistoryPage, HistoryPart } from "../../../api/history.js";
import type { JsonValue } from "../../../model/json.js";
import { wireSchema } from "../../http/wire-schema.js";
import { named } from "./named-schema.js";

const PartField = Type.Union([Type.Literal("arguments"), Type.Literal("result")]);
const Encoding = Type.Union([Type.Literal("text"), Type.Literal("json")]);
const Marker = {
  truncated: Type.Literal(true),
  bytes: Type.Integer({ minimum: 0, description: "UTF-8 bytes of the whole content" }),
  encoding: Encoding,
  ref: Type.String({ description: "path of the content route that serves the whole content" }),
};

export const HistoryPartSchema = named(
  "HistoryPart",
  wireSchema<HistoryPart>()(
    Type.Union([
      Type.Object({ kind: Type.Literal("text"), text: Type.String() }, { additionalProperties: false }),
      Type.Object(
        {
          kind: Type.Literal("json"),
          field: PartField,
          value: Type.Unsafe<JsonValue>({ description: "any JSON value" }),
        },
        { additionalProperties: false },
      ),
      Type.Object(
        { kind: Type.Literal("text"), text: Type.String(), ...Marker },
        { additionalProperties: false },
      ),
      Type.Object(
        { kind: Type.Literal("json"), field: PartField, value: Type.String(), ...Marker },
        { additionalProperties: false },
      ),
    ]),
  ),
);

export const HistoryEntrySchema = named(
  "HistoryEntry",
  wireSchema<HistoryEntry>()(
    Type.Object(
      {
        id: Type.String(),
        position: Type.Integer({ minimum: 0 }),
        kind: Type.Union([
          Type.Literal("user"),
          Type.Literal("assistant"),
          Type.Literal("thinking"),
          Type.Literal("tool_call"),
          Type.Literal("tool_result"),
          Type.Literal("note"),
          Type.Literal("continuation"),
          Type.Literal("compaction"),
          Type.Literal("context_excluded"),
        ]),
        turn_id: Type.Union([Type.String(), Type.Null()]),
        input_id: Type.Union([Type.String(), Type.Null()]),
        created_at: Type.String({ format: "date-time" }),
        content: Type.Array(HistoryPartSchema),
        checkpoint_id: Type.Union([Type.String(), Type.Null()]),
        tool: Type.Union([
          Type.Object(
            { name: Type.String(), tool_call_id: Type.String(), is_error: Type.Optional(Type.Boolean()) },
            { additionalProperties: false },
          ),
          Type.Null(),
        ]),
        thinking_duration_ms: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
        compaction: Type.Optional(
          Type.Object(
            {
              first_kept_position: Type.Integer({ minimum: 0 }),
              before_tokens: Type.Integer({ minimum: 0 }),
              after_tokens: Type.Integer({ minimum: 0 }),
              trigger: Type.Union([
                Type.Literal("auto"),
                Type.Literal("overflow"),
                Type.Literal("manual"),
                Type.Null(),
              ]),
            },
            { additionalProperties: false },
          ),
        ),
        excluded: Type.Optional(
          Type.Object(
            {
              from_position: Type.Integer({ minimum: 1 }),
              to_position: Type.Integer({ minimum: 1 }),
              reason: Type.Union([Type.Literal("refusal"), Type.Literal("repair")]),
            },
            {
              additionalProperties: false,
              description:
                "context_excluded entries only: the log positions whose items the model is no longer sent, and why (refusal: the model refused that turn; repair: POST /sessions/{id}/repair)",
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  ),
);

export const HistoryPageSchema = named(
  "HistoryPage",
  wireSchema<HistoryPage>()(
    Type.Object(
      {
        items: Type.Array(HistoryEntrySchema),
        older: Type.Union([Type.String(), Type.Null()]),
        newer: Type.Union([Type.String(), Type.Null()]),
        high_water: Type.Integer(),
        byte_limited: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
  ),
);

export const ContentSliceSchema = named(
  "ContentSlice",
  wireSchema<ContentSlice>()(
    Type.Object(
      {
        entry_id: Type.String(),
        part: Type.Integer({ minimum: 0 }),
        encoding: Encoding,
        bytes: Type.Integer({ minimum: 0 }),
        offset: Type.Integer({ minimum: 0 }),
        next_offset: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        text: Type.String(),
      },
      { additionalProperties: false },
    ),
  ),
);
