/**
 * `GET /config` and the changes of a cluster's shared config: where `skein config` writes and
 * the config in force on the daemon.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/config.ts).
 */
export type { ConfigSettingBody, ConfigView } from "./schemas/config.js";
