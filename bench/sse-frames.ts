/** Splitting a server-sent event stream into its frames, for the benches' stream clients. */
import type { IncomingMessage } from "node:http";

/**
 * Call `onFrame` for each frame of `res` that has a `data:` line, with the whole frame (its
 * `id:` line included) and the text after `data: `.
 */
export function readSseFrames(res: IncomingMessage, onFrame: (frame: string, data: string) => void): void {
  let buffered = "";
  res.setEncoding("utf8");
  res.on("data", (chunk: string) => {
    buffered += chunk;
    let end = buffered.indexOf("\n\n");
    while (end >= 0) {
      const frame = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
      const data = frame.indexOf("data: ");
      if (data >= 0) onFrame(frame, frame.slice(data + 6));
    }
  });
}
