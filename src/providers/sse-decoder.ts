/**
 * Bytes → Server-Sent Events messages. Chunks may split lines, events and multi-byte UTF-8
 * characters anywhere; the decoder carries partial state across chunks (a StringDecoder, which
 * holds back a character's incomplete bytes, + eventsource-parser). Not TextDecoder: in stream
 * mode it decodes several times slower, a cost paid on every byte of a long answer.
 *
 * Boundary rule: no knowledge of any provider's payloads; no I/O.
 */
import { StringDecoder } from "node:string_decoder";
import { createParser, type EventSourceParser, type ParseError } from "eventsource-parser";

/** One SSE message: the `event:` field (absent when the server sent none) and the joined `data:` lines. */
export interface SseMessage {
  event?: string;
  data: string;
}

/** Raised when one event grows beyond the decoder's buffer limit. */
export class SseOverflowError extends Error {
  constructor(readonly limit: number) {
    super(`an SSE event exceeded ${limit} characters`);
    this.name = "SseOverflowError";
  }
}

/** 32 MiB of text in one event is far beyond any real provider payload. */
const defaultMaxEventChars = 32 * 1024 * 1024;

/** Incremental SSE decoder: feed byte chunks, get the messages they complete. */
export class SseDecoder {
  private readonly text = new StringDecoder("utf8");
  private readonly parser: EventSourceParser;
  private messages: SseMessage[] = [];
  private overflow: ParseError | undefined;
  private lastChar = "";
  /** A byte order mark opening the stream is not text (TextDecoder's default, and the SSE spec's). */
  private atStart = true;

  constructor(private readonly maxEventChars = defaultMaxEventChars) {
    this.parser = createParser({
      maxBufferSize: maxEventChars,
      // The parser's own message object ({id, event, data}) is a fresh one per event: handed
      // on as it is, not copied (one allocation less per delta).
      onEvent: (message) => {
        this.messages.push(message);
      },
      onError: (error) => {
        // Unknown fields and bad `retry:` values are ignorable per the SSE spec; only a
        // runaway event is fatal.
        if (error.type === "max-buffer-size-exceeded") this.overflow = error;
      },
    });
  }

  /** Decodes one chunk and returns the messages it completed (possibly none). */
  decode(chunk: Uint8Array): readonly SseMessage[] {
    const text = this.withoutBom(this.text.write(chunk));
    if (text.length > 0) this.feed(text);
    return this.take();
  }

  /**
   * Ends the byte stream. A last event whose lines are complete but that lacks the closing
   * blank line is still delivered; a line cut off mid-way is dropped (the stream was truncated,
   * which the protocol parser reports).
   */
  end(): readonly SseMessage[] {
    const rest = this.withoutBom(this.text.end());
    if (rest.length > 0) this.feed(rest);
    if (this.lastChar === "\n" || this.lastChar === "\r") this.feed("\n");
    return this.take();
  }

  private withoutBom(text: string): string {
    if (!this.atStart || text.length === 0) return text;
    this.atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }

  private feed(text: string): void {
    if (this.overflow !== undefined) throw new SseOverflowError(this.maxEventChars);
    this.parser.feed(text);
    this.lastChar = text[text.length - 1] ?? this.lastChar;
    if (this.overflow !== undefined) throw new SseOverflowError(this.maxEventChars);
  }

  private take(): readonly SseMessage[] {
    if (this.messages.length === 0) return noMessages;
    const taken = this.messages;
    this.messages = [];
    return taken;
  }
}

const noMessages: readonly SseMessage[] = [];
