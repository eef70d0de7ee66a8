export type * from "./approval-policy.js";
export * from "./events.js";
export * from "./items.js";
export type * from "./json.js";
export * from "./llm-client.js";
export * from "./request-config.js";
export * from "./token-estimate.js";
export * from "./tools.js";
export * from "./usage.js";
