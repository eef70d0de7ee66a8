/**
 * Inline reasoning in Chat Completions text: servers that pass a model's raw output through
 * (llama.cpp, TGI, Groq's raw format, some Ollama models) start the content with
 * `<think>…</think>`. The splitter turns such a prefix into thinking and the rest into text,
 * across any split of the deltas. Only a `<think>` that opens the content (after whitespace)
 * counts, so an answer that merely mentions the tag stays text.
 *
 * Boundary rule: pure state for one response's content.
 */

export interface ContentSegment {
  kind: "text" | "thinking";
  text: string;
}

const openTag = "<think>";
const closeTag = "</think>";

type Phase = "undecided" | "thinking" | "text";

/** Splits one response's content stream into thinking and text segments. */
export class ThinkTagSplitter {
  private phase: Phase = "undecided";
  private held = "";
  /** The blank lines after `</think>` are the tag's, not the answer's, whichever delta brings them. */
  private trimLeading = false;

  /**
   * True once every further delta is text exactly as it came (no tag can open any more and
   * nothing is held back): the caller may then skip `push` and its segments.
   */
  get plainText(): boolean {
    return this.phase === "text" && !this.trimLeading && this.held.length === 0;
  }

  /** The segments one content delta yields (possibly none while a tag may still be forming). */
  push(delta: string): ContentSegment[] {
    this.held += delta;
    const out: ContentSegment[] = [];
    if (this.phase === "undecided") {
      const trimmed = this.held.trimStart();
      if (trimmed.length < openTag.length && openTag.startsWith(trimmed)) return out;
      if (trimmed.startsWith(openTag)) {
        this.phase = "thinking";
        this.held = trimmed.slice(openTag.length);
      } else {
        this.phase = "text";
      }
    }
    if (this.phase === "thinking") {
      const end = this.held.indexOf(closeTag);
      if (end < 0) {
        // Keep back what could be the start of the closing tag.
        const keep = partialSuffix(this.held, closeTag);
        emit(out, "thinking", this.held.slice(0, this.held.length - keep));
        this.held = this.held.slice(this.held.length - keep);
        return out;
      }
      emit(out, "thinking", this.held.slice(0, end));
      this.held = this.held.slice(end + closeTag.length);
      this.phase = "text";
      this.trimLeading = true;
    }
    if (this.trimLeading) {
      this.held = this.held.replace(/^\s+/, "");
      if (this.held.length > 0) this.trimLeading = false;
    }
    emit(out, "text", this.held);
    this.held = "";
    return out;
  }

  /** Whatever is still held back when the content ends. */
  flush(): ContentSegment[] {
    const out: ContentSegment[] = [];
    emit(out, this.phase === "thinking" ? "thinking" : "text", this.held);
    this.held = "";
    return out;
  }
}

function emit(out: ContentSegment[], kind: ContentSegment["kind"], text: string): void {
  if (text.length > 0) out.push({ kind, text });
}

/** The length of the longest suffix of `text` that is a proper prefix of `tag`. */
function partialSuffix(text: string, tag: string): number {
  for (let length = Math.min(tag.length - 1, text.length); length > 0; length--) {
    if (tag.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
