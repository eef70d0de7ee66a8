/**
 * Copying text to the clipboard of the terminal the person sits at: OSC 52, which works through
 * ssh; tmux takes it with `set-clipboard on`, GNU screen needs it wrapped in its pass-through.
 *
 * Boundary rule: builds the escape sequence; writing it is the caller's.
 */

/** The escape sequence that puts `text` on the clipboard. */
export function osc52Copy(text: string, env: NodeJS.ProcessEnv): string {
  const sequence = `\x1b]52;c;${Buffer.from(text, "utf8").toString("base64")}\x07`;
  if (env.TMUX !== undefined && env.TMUX !== "")
    return `\x1bPtmux;${sequence.replaceAll("\x1b", "\x1b\x1b")}\x1b\\`;
  if (env.TERM?.startsWith("screen") === true) return `\x1bP${sequence}\x1b\\`;
  return sequence;
}
