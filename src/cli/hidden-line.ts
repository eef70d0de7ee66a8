/**
 * One line typed at a terminal without echoing it: the API key `skein auth set` asks for.
 *
 * Boundary rule: raw-mode input only; the terminal's mode is restored however the read ends.
 * Ctrl-C gives up (an interrupted CliError); Enter ends the line; Backspace removes the last
 * character; escape sequences (arrows, a bracketed paste's markers) are dropped, their text is not.
 */
import { CliError } from "./cli-error.js";
import { exitCodes } from "./exit-codes.js";

/** The line typed at `input` (a TTY), after writing `prompt` to `output`; nothing is echoed. */
export function readHiddenLine(
  input: NodeJS.ReadStream,
  output: NodeJS.WritableStream,
  prompt: string,
): Promise<string> {
  output.write(prompt);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  input.resume();
  return new Promise<string>((resolve, reject) => {
    let line = "";
    const finish = (error: CliError | null): void => {
      input.off("data", onData);
      input.setRawMode(wasRaw);
      input.pause();
      output.write("\n");
      if (error === null) resolve(line);
      else reject(error);
    };
    const onData = (chunk: Buffer | string): void => {
      // Escape sequences first, so their letters do not end up in the key.
      const text = (typeof chunk === "string" ? chunk : chunk.toString("utf8")).replace(
        // biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
        /\u001b\[[0-9;~]*[A-Za-z~]?/g,
        "",
      );
      for (const char of text) {
        if (char === "\r" || char === "\n") {
          finish(null);
          return;
        }
        if (char === "\u0003") {
          finish(new CliError("cancelled", exitCodes.interrupted));
          return;
        }
        if (char === "\u0004" && line === "") {
          finish(null);
          return;
        }
        if (char === "\u007f" || char === "\b") line = line.slice(0, -1);
        else if (char >= " ") line += char;
      }
    };
    input.on("data", onData);
  });
}
