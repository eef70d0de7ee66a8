/** The session log layer's public API: entries, canonical JSON + hash chain, replay, persistence, stores. */
export * from "./canonical-json.js";
export * from "./collect-state.js";
export type * from "./entries.js";
export * from "./entry-hash.js";
export * from "./errors.js";
export type { FileLockOptions } from "./file-lock.js";
export * from "./fork-entries.js";
export * from "./fs-store.js";
export * from "./pg-store.js";
export * from "./prepared-append.js";
export * from "./session-log.js";
export * from "./sqlite-store.js";
export type * from "./store.js";
export * from "./stored-entry.js";
export * from "./verify-chain.js";
