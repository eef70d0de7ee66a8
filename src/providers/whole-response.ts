/**
 * A 200 answer whose body is one JSON document instead of an event stream (a proxy that does
 * not stream, or a server that ignores `stream: true`): the document is read whole, turned by
 * the protocol into the events its own stream would have carried, and parsed like a stream.
 *
 * Boundary rule: generic; each protocol's converter lives in its folder (`whole-response.ts`).
 */
import { LlmClientError } from "../model/llm-client.js";
import type { SseMessage } from "./sse-decoder.js";
import { preview } from "./wire-json.js";

/** Turns one whole response document into the messages of the equivalent stream. */
export type WholeResponseConverter = (document: unknown) => SseMessage[];

/** Whether a media type is JSON (`application/json`, `application/problem+json`, ...). */
export function isJsonMediaType(mediaType: string | undefined): boolean {
  return mediaType !== undefined && /^application\/([\w.-]+\+)?json$/.test(mediaType);
}

/** The chunks of a JSON body, re-served as the SSE text of the stream it stands for. */
export async function* wholeResponseChunks(
  chunks: AsyncIterable<Uint8Array>,
  convert: WholeResponseConverter,
  provider: string,
): AsyncGenerator<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  const text = Buffer.concat(parts).toString("utf8");
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (cause) {
    throw new LlmClientError(
      "protocol",
      provider,
      `${provider}: the JSON response is not JSON: ${preview(text)}`,
      {
        code: "invalid_json",
        cause,
      },
    );
  }
  const frames = convert(document).map(
    (message) => `${message.event === undefined ? "" : `event: ${message.event}\n`}data: ${message.data}\n\n`,
  );
  yield Buffer.from(frames.join(""), "utf8");
}
