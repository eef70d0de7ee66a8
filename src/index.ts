/**
 * Skein's public library API: the model types, the agent Worker, the session log and its stores,
 * the provider clients and the built-in workspace tools. The daemon and the CLI are programs
 * built on these; they are not part of the library surface.
 */
export * from "./log/index.js";
export * from "./model/index.js";
export * from "./providers/index.js";
export * from "./tools/index.js";
export * from "./worker/index.js";
