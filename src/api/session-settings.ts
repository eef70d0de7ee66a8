/**
 * A session's provider, model and model parameters: how a client sets them (at creation and
 * with `PATCH /sessions/{id}`) and how a snapshot shows them.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/session-settings.ts).
 */
export type { RequestConfigBody, SessionSettings, SessionSettingsBody } from "./schemas/session-settings.js";
