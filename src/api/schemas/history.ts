/**
 * Session history on the wire, as TypeBox schemas and the types derived from them: entries (one
 * per item of a committed log entry), their content parts, pages (`GET /sessions/{id}/history`
 * and a snapshot's `history`), the slices of a truncated part's content (`GET
 * /sessions/{id}/entries/{entry_id}/content`) and the queries of both routes.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema. The daemon
 * builds them from the log (src/daemon/history), a client reads them.
 */
import { type Static, Type } from "typebox";
import type { JsonValue } from "../../model/json.js";
import { named } from "./named-schema.js";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

/** The most bytes of JSON-escaped text one slice holds, and the default (the answer stays within 1 MiB). */
export const maxContentSliceBytes = 960 * 1024;

const PartField = literalUnion("arguments", "result");

const ContentEncodingSchema = literalUnion("text", "json");

/**
 * What the fetched content of a truncated part is: the text itself (`text` parts, and `json`
 * parts whose value is a string), or the JSON text of the part's value.
 */
export type ContentEncoding = Static<typeof ContentEncodingSchema>;

/** What a truncated part carries besides its preview. */
const marker = {
  truncated: Type.Literal(true),
  /** UTF-8 bytes of the whole content. */
  bytes: Type.Integer({ minimum: 0, description: "UTF-8 bytes of the whole content" }),
  encoding: ContentEncodingSchema,
  /** Path (with query) of the content route that serves the whole content in slices. */
  ref: Type.String({ description: "path of the content route that serves the whole content" }),
};

const InlineText = closedObject({ kind: Type.Literal("text"), text: Type.String() });
const InlineJson = closedObject({
  kind: Type.Literal("json"),
  field: PartField,
  value: Type.Unsafe<JsonValue>({ description: "any JSON value" }),
});
const TruncatedText = closedObject({ kind: Type.Literal("text"), text: Type.String(), ...marker });
const TruncatedJson = closedObject({
  kind: Type.Literal("json"),
  field: PartField,
  value: Type.String(),
  ...marker,
});

/** A content part: whole (as the log holds it) or truncated (its content fetched through `ref`). */
const HistoryPartSchema = named(
  "HistoryPart",
  Type.Union([InlineText, InlineJson, TruncatedText, TruncatedJson]),
);
export type HistoryPart = Static<typeof HistoryPartSchema>;

/** A content part as the log holds it, whole. */
export type InlinePart = Static<typeof InlineText> | Static<typeof InlineJson>;

/**
 * A part too large to send inline: `text` (or `value`, then always a string) holds only the
 * first characters of the content.
 */
export type TruncatedPart = Static<typeof TruncatedText> | Static<typeof TruncatedJson>;

/** What a truncated part carries besides its preview. */
export type TruncationMarker = Omit<Static<typeof TruncatedText>, "kind" | "text">;

const HistoryEntryKindSchema = literalUnion(
  "user",
  "assistant",
  "thinking",
  "tool_call",
  "tool_result",
  "note",
  "continuation",
  "compaction",
  "context_excluded",
);
export type HistoryEntryKind = Static<typeof HistoryEntryKindSchema>;

/** The tool a tool_call or tool_result entry is about. */
const HistoryToolSchema = closedObject({
  name: Type.String(),
  tool_call_id: Type.String(),
  /** Only on tool_result entries: whether the tool reported an error. */
  is_error: Type.Optional(Type.Boolean()),
});
export type HistoryTool = Static<typeof HistoryToolSchema>;

/**
 * A compaction as history shows it: from here on the model sees the summary plus the entries
 * from `first_kept_position` on; the token counts are the daemon's estimates of the context.
 */
const HistoryCompactionSchema = closedObject({
  first_kept_position: Type.Integer({ minimum: 0 }),
  before_tokens: Type.Integer({ minimum: 0 }),
  after_tokens: Type.Integer({ minimum: 0 }),
  /** `auto` (the fill threshold), `overflow` (the provider refused a long request), `manual`; null in entries that do not say. */
  trigger: Type.Union([Type.Literal("auto"), Type.Literal("overflow"), Type.Literal("manual"), Type.Null()]),
});
export type HistoryCompaction = Static<typeof HistoryCompactionSchema>;

/**
 * Entries the model is no longer sent: the items of log positions `from_position` through
 * `to_position` leave every later request (their history entries stay). `reason` is `refusal`
 * (the model refused that turn) or `repair` (a client asked, `POST /sessions/{id}/repair`).
 */
const HistoryExclusionSchema = closedObject({
  from_position: Type.Integer({ minimum: 1 }),
  to_position: Type.Integer({ minimum: 1 }),
  reason: literalUnion("refusal", "repair"),
});
export type HistoryExclusion = Static<typeof HistoryExclusionSchema>;

/** One history entry: what a client sees of one item of a committed log entry. */
export const HistoryEntrySchema = namedObject("HistoryEntry", {
  /** `"<position>"`, `"<position>-<k>"` or `"continue-<input_id>"`. */
  id: Type.String(),
  /** The log position the entry comes from (several entries may share one). */
  position: Type.Integer({ minimum: 0 }),
  kind: HistoryEntryKindSchema,
  turn_id: NullableString,
  input_id: NullableString,
  /** RFC 3339 with milliseconds, UTC: the log entry's time. */
  created_at: Time,
  content: Type.Array(HistoryPartSchema),
  /** The id a fork may start from (this entry included), or null for thinking and continuation. */
  checkpoint_id: NullableString,
  tool: Type.Union([HistoryToolSchema, Type.Null()]),
  /** Thinking entries only: ms from the first thinking delta to the end of the block; null when unknown. */
  thinking_duration_ms: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  /** Compaction entries only: what the compaction kept and saved (`content` holds the summary). */
  compaction: Type.Optional(HistoryCompactionSchema),
  /** Context_excluded entries only: the entries left out of the model's context (`content` says so in words). */
  excluded: Type.Optional(HistoryExclusionSchema),
  /**
   * Assistant and thinking entries only, and only `true`: the answer was cut short by an
   * interrupt and holds what had streamed until then (absent on whole answers).
   */
  interrupted: Type.Optional(Type.Literal(true)),
});
export type HistoryEntry = Static<typeof HistoryEntrySchema>;

/** `GET /sessions/{id}/history` and a snapshot's `history`. */
export const HistoryPageSchema = namedObject("HistoryPage", {
  /** Oldest first. */
  items: Type.Array(HistoryEntrySchema),
  /** A token for the page before this one, or null when nothing older exists. */
  older: NullableString,
  /** A token for the page after this one (up to `high_water`), or null. */
  newer: NullableString,
  /** The log head position this page (and every page reached from its tokens) is bounded by. */
  high_water: Type.Integer(),
  /** True when the byte budget ended the page before `limit` positions (more follow in its direction). */
  byte_limited: Type.Boolean(),
});
export type HistoryPage = Static<typeof HistoryPageSchema>;

/** The query of `GET /sessions/{id}/history`: the newest page without one; at most one of next, before, after. */
export const HistoryQuerySchema = closedObject({
  /** Positions per page, 1..200 (default 100); must equal the limit a `next` token was issued for. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
  /** An `older` or `newer` token of an earlier page. */
  next: Type.Optional(Type.String({ maxLength: 2048 })),
  /** Read backwards from this log position (exclusive). */
  before: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  /** Read forwards from this log position (exclusive, except 0: from the start). */
  after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
});
export type HistoryQuery = Static<typeof HistoryQuerySchema>;

/** `GET /sessions/{id}/entries/{entry_id}/content`: one slice of a part's whole content. */
export const ContentSliceSchema = namedObject("ContentSlice", {
  entry_id: Type.String(),
  part: Type.Integer({ minimum: 0 }),
  encoding: ContentEncodingSchema,
  /** UTF-8 bytes of the whole content. */
  bytes: Type.Integer({ minimum: 0 }),
  /** UTF-8 byte offset of this slice's text. */
  offset: Type.Integer({ minimum: 0 }),
  /** Where the next slice starts, or null after the last one. */
  next_offset: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  text: Type.String(),
});
export type ContentSlice = Static<typeof ContentSliceSchema>;

/** The query of `GET /sessions/{id}/entries/{entry_id}/content` (a part's `ref` carries `part`). */
export const ContentQuerySchema = closedObject({
  /** The part's index in the entry's `content`. */
  part: Type.Integer({ minimum: 0, maximum: 1_000_000 }),
  /** UTF-8 byte offset where the slice starts (default 0); must start a character. */
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
  /** Most bytes the slice's text takes as a JSON string (1..983040, the default). */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxContentSliceBytes })),
});
export type ContentQuery = Static<typeof ContentQuerySchema>;
