/** The fake provider's reply builders and encoders, for benchmarks. */
export { encodeContext } from "./encode-context.js";
export { encodeReply, encodeReplyText } from "./encode-reply.js";
export * from "./reply.js";
