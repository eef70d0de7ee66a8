/**
 * `POST /gc`: retention applied now, or a dry run of it.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/retention.ts).
 */
export type { GcBody, GcReport } from "./schemas/retention.js";
