/**
 * The session collection on the wire, as TypeBox schemas and the types derived from them:
 * listing (`GET /sessions`, its query and the session list stream's snapshot), reading one
 * (`GET /sessions/{id}`'s query) and deleting (`DELETE /sessions/{id}`).
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { maxSessionPageSize } from "../session-page-size.js";
import { closedObject, literalUnion, namedObject } from "./parts.js";
import { SessionSummarySchema } from "./session-snapshot.js";
import { streamResumeFields } from "./stream-cursor.js";

const listFields = {
  scope: Type.Optional(literalUnion("all", "top")),
  /** List the forks of this session (not together with `scope`). */
  parent_id: Type.Optional(Type.String()),
};

const SessionListQuerySchema = closedObject(listFields);

/** Which sessions `GET /sessions` lists: all (the default), the top-level ones, or one session's forks. */
export type SessionListQuery = Static<typeof SessionListQuerySchema>;

const pageFields = {
  /** Sessions per page, 1..1000 (default 100); JSON only. */
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxSessionPageSize })),
  /** The `next` token of the page before; JSON only. */
  next: Type.Optional(Type.String({ maxLength: 256 })),
};

/** The query of `GET /sessions`: which sessions, which page, and where a stream of the list resumes. */
export const ListQuerySchema = closedObject({ ...listFields, ...pageFields, ...streamResumeFields });
export type ListQuery = Static<typeof ListQuerySchema>;

/** `GET /sessions`, and the snapshot of the session list stream's reset. */
export const SessionListSchema = namedObject("SessionList", {
  /** Newest activity first. */
  items: Type.Array(SessionSummarySchema),
  /** `GET /sessions` only: the token of the next page, or null after the last one (absent in the list stream). */
  next: Type.Optional(Type.Union([Type.String(), Type.Null()])),
});
export type SessionList = Static<typeof SessionListSchema>;

/** `DELETE /sessions/{id}`. */
export const DeleteAnswerSchema = closedObject({ id: Type.String(), deleted: Type.Literal(true) });
export type DeleteAnswer = Static<typeof DeleteAnswerSchema>;

const tailField = {
  /** How many history entries the snapshot holds (0..200, default 100). */
  tail: Type.Optional(Type.Integer({ minimum: 0, maximum: 200 })),
};

const SessionQuerySchema = closedObject(tailField);

/** The query of `GET /sessions/{id}`: how many history entries the snapshot holds. */
export type SessionQuery = Static<typeof SessionQuerySchema>;

/** The query of `GET /sessions/{id}`, with where a stream of the session resumes. */
export const SessionReadQuerySchema = closedObject({ ...tailField, ...streamResumeFields });
export type SessionReadQuery = Static<typeof SessionReadQuerySchema>;
