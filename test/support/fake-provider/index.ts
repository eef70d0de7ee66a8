/** The fake provider server and its reply builders and encoders, for tests and benchmarks. */
export { encodeAnthropic } from "./encode-anthropic.js";
export { encodeChatCompletions } from "./encode-chat-completions.js";
export { type EncodeContext, encodeContext } from "./encode-context.js";
export { encodeGemini } from "./encode-gemini.js";
export {
  encodeReply,
  encodeReplyText,
  errorBody,
  errorCodeOf,
  geminiModelOfPath,
  protocolOfPath,
} from "./encode-reply.js";
export { encodeResponses } from "./encode-responses.js";
export * from "./reply.js";
export {
  FakeProvider,
  type FakeProviderOptions,
  type RecordedRequest,
  type Script,
  startFakeProvider,
} from "./server.js";
