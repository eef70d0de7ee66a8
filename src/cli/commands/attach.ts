/**
 * `skein attach ID`: follow a session live (its recent history first), across reconnects and
 * daemon restarts, until Ctrl-C (which detaches; the session keeps running).
 *
 * Boundary rule: read-only; it never sends input or interrupts.
 */
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { Spinner } from "../render/spinner.js";
import { TranscriptView } from "../render/transcript-view.js";
import { resolveSessionId } from "../session-ref.js";
import { SessionWatcher } from "../session-watcher.js";

export interface AttachOptions {
  tail?: number;
  hideThinking?: boolean;
  /** Leave once the session is idle with nothing queued. */
  untilIdle?: boolean;
}

/** Follow a session; resolves with the exit code when detached. */
export async function attachSession(
  context: CliContext,
  ref: string,
  options: AttachOptions,
): Promise<ExitCode> {
  const client = await connect(context);
  const out = context.terminal.out;
  const spinner = new Spinner(out, context.env);
  try {
    const id = await resolveSessionId(client, ref);
    const view = new TranscriptView({
      text: out,
      aside: out,
      showThinking: options.hideThinking !== true,
      showUserEntries: true,
      spinner,
    });
    const watcher = new SessionWatcher(client, id, view, {
      after: null,
      tail: options.tail ?? 10,
      initialHistory: "render",
    });
    view.notice(`attached to session ${id} (Ctrl-C detaches; the session keeps running)`);
    watcher.start();
    await watcher.connected();
    const idle = (): boolean => watcher.status.phase === "idle" && watcher.pendingInputs.size === 0;
    let detach: () => void = () => {};
    const detached = new Promise<"detached">((resolve) => {
      detach = () => resolve("detached");
    });
    process.once("SIGINT", detach);
    try {
      await Promise.race([
        detached,
        options.untilIdle === true ? watcher.waitUntil(idle) : watcher.waitUntil(() => false),
      ]);
    } finally {
      process.off("SIGINT", detach);
    }
    view.finish();
    await watcher.stop();
    return exitCodes.ok;
  } finally {
    spinner.stop();
    client.close();
  }
}
