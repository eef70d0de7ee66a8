/**
 * The request body of each wire protocol as the vendor's official SDK declares it: what
 * sdk-declared-fields.test.ts checks every built body against, one object literal per body, so
 * the compiler's excess-property check reports any field the SDK does not declare. The SDKs are
 * dev dependencies; nothing under src/ imports them.
 *
 * Known differences, kept on purpose:
 * - Responses `reasoning` input items: the SDK requires `id`, but with `store: false` an id
 *   points at nothing, so it is sent only when stored (encrypted content carries the item).
 * - Gemini: the SDK's request types are its own (a `config` object, enum values in capitals),
 *   so the REST body is put together from the SDK's wire-level types (Content, Tool,
 *   GenerationConfig), with thinking levels as the enum's values in lower case.
 *
 * Boundary rule: types only.
 */
import type { MessageCreateParamsStreaming } from "@anthropic-ai/sdk/resources/messages/messages";
import type { Content, GenerationConfig, ThinkingConfig, ThinkingLevel, Tool } from "@google/genai";
import type { ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions/completions";
import type {
  ResponseCreateParamsStreaming,
  ResponseInputItem,
  ResponseReasoningItem,
} from "openai/resources/responses/responses";

/** A Chat Completions body: the OpenAI SDK's streaming create parameters. */
export type SdkChatBody = ChatCompletionCreateParamsStreaming;

/** An Anthropic Messages body: the Anthropic SDK's streaming create parameters. */
export type SdkAnthropicBody = MessageCreateParamsStreaming;

/** The SDK's Responses input items, with a reasoning item's id optional (see above). */
export type SdkResponsesInputItem =
  | Exclude<ResponseInputItem, ResponseReasoningItem>
  | (Omit<ResponseReasoningItem, "id"> & { id?: string });

/** A Responses body: the OpenAI SDK's streaming create parameters, input as sent. */
export type SdkResponsesBody = Omit<ResponseCreateParamsStreaming, "input"> & {
  input: SdkResponsesInputItem[];
};

/** Gemini's thinking config on the wire: the enum's values in lower case. */
type GeminiWireThinkingConfig = Omit<ThinkingConfig, "thinkingLevel"> & {
  thinkingLevel?: Lowercase<`${ThinkingLevel}`>;
};

/** A Gemini `generateContent` REST body, from the SDK's wire-level types. */
export interface SdkGeminiBody {
  contents: Content[];
  systemInstruction?: Content;
  tools?: Tool[];
  generationConfig?: Omit<GenerationConfig, "thinkingConfig"> & { thinkingConfig?: GeminiWireThinkingConfig };
}
