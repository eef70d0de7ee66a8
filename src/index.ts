/** Skein's public library API. */
export * from "./model/index.js";
