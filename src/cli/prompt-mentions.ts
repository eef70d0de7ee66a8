/**
 * `@path` mentions in a chat prompt: each names a file of the session's workspace whose text is
 * attached to the prompt (after it, fenced, with its path), so the model sees it without a tool
 * call. Only regular files inside the workspace (symbolic links resolved first), UTF-8 text, at
 * most 256 KiB each; a mention that names nothing attachable is left as plain text and said so.
 *
 * Boundary rule: reads workspace files the person named, from the CLI's side; the prompt text
 * itself is never changed, only followed by the attachments.
 */
import { readWorkspaceText } from "./workspace-text.js";

const maxBytes = 256 * 1024;

/** The prompt as sent, and what the person is told about each mention. */
export interface MentionResult {
  text: string;
  notes: string[];
}

/** Attach the files that `@path` mentions in `prompt` name. */
export function attachMentions(prompt: string, workspace: string): MentionResult {
  const seen = new Set<string>();
  const blocks: string[] = [];
  const notes: string[] = [];
  for (const match of prompt.matchAll(/(?<=^|\s)@([^\s]+)/g)) {
    const file = match[1]!.replace(/[.,;:!?)]+$/, "");
    if (file === "" || seen.has(file)) continue;
    seen.add(file);
    const read = readWorkspaceText(workspace, file, maxBytes);
    if (read.kind === "skipped") {
      notes.push(`@${file} not attached: ${read.reason}`);
      continue;
    }
    const lines = read.text.split("\n").length;
    const fence = read.text.includes("```") ? "````" : "```";
    blocks.push(`${fence} ${file}\n${read.text}${read.text.endsWith("\n") ? "" : "\n"}${fence}`);
    notes.push(`attached @${file} (${lines} line${lines === 1 ? "" : "s"})`);
  }
  if (blocks.length === 0) return { text: prompt, notes };
  return { text: `${prompt}\n\n${blocks.join("\n\n")}`, notes };
}
