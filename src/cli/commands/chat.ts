/**
 * `skein` / `skein chat`: talk to an agent whose workspace is the current directory.
 *
 * Boundary rule: setting a chat up and switching sessions: open the session, build the view,
 * watcher and approvals of each one and hand them to its prompt loop (chat-prompt-loop.ts),
 * which reads prompts and runs turns. Keys: Ctrl-C interrupts a running turn (twice: quit at
 * once); at the prompt Ctrl-C clears the line, and on an empty line a second Ctrl-C (or one
 * right after an interrupted turn) exits; Ctrl-D exits. Reconnecting after a lost connection or
 * a daemon restart is the watcher's job and needs nothing from here.
 */
import type { ShellInfo } from "../../api/server.js";
import type { SessionSnapshot } from "../../api/session-snapshot.js";
import type { DaemonClient } from "../../client/daemon-client.js";
import { ChatApprovalMode } from "../chat-approval-mode.js";
import { ChatApprovals } from "../chat-approvals.js";
import { ChatNotes } from "../chat-notes.js";
import { ChatTasks } from "../chat-tasks.js";
import { type CliContext, connectWithServer } from "../cli-context.js";
import type { ExitCode } from "../exit-codes.js";
import { historyPath } from "../line-editor/prompt-history.js";
import { openSession, type SessionChoice } from "../open-session.js";
import { PromptReader } from "../prompt-reader.js";
import { writeShellWarning } from "../render/shell-warning.js";
import { Spinner } from "../render/spinner.js";
import { type OutputStream, wantsColor, writeLine } from "../render/terminal.js";
import { TranscriptView } from "../render/transcript-view.js";
import { TurnStatus } from "../render/turn-status.js";
import { SessionWatcher } from "../session-watcher.js";
import { workspaceTextReader } from "../workspace-text.js";
import type { ChatEnd } from "./chat-end.js";
import { ChatPromptLoop } from "./chat-prompt-loop.js";
import { slashCommandNames } from "./chat-slash-commands.js";

export interface ChatOptions extends SessionChoice {
  hideThinking?: boolean;
}

/** Run an interactive chat; resolves with the exit code. */
export async function chat(context: CliContext, options: ChatOptions): Promise<ExitCode> {
  const { client, server } = await connectWithServer(context);
  const out = context.terminal.out;
  const interactive = context.stdin.isTTY === true && out.tty;
  const reader = new PromptReader({
    input: context.stdin,
    output: process.stdout,
    interactive,
    historyFile: interactive ? historyPath(context.home, context.cwd) : null,
    completion: { commands: slashCommandNames, workspace: context.cwd },
    paint: out.paint,
  });
  try {
    let opened = await openChatSession(client, context, options);
    for (;;) {
      const end = await chatInSession(client, server.shell, context, options, reader, opened);
      if (end.kind === "exit") return end.code;
      // An agent's session (or its parent) shows its recent history; a new one or a fork starts empty.
      opened = { snapshot: await client.getSession(end.sessionId, 0), created: end.resume !== true };
    }
  } finally {
    reader.close();
    client.close();
  }
}

/** The chat in one session, until it exits or switches to another session (/new, /fork). */
async function chatInSession(
  client: DaemonClient,
  shell: ShellInfo | undefined,
  context: CliContext,
  options: ChatOptions,
  reader: PromptReader,
  { snapshot, created }: { snapshot: SessionSnapshot; created: boolean },
): Promise<ChatEnd> {
  const out = context.terminal.out;
  let watcher: SessionWatcher | null = null;
  let usage = (): string | null => null;
  const tasks = new ChatTasks();
  const { notes, status } = chatStatus(reader, tasks, out, () => usage());
  const stopPolling = pollTaskTokens(client, snapshot.id, tasks, notes);
  try {
    const view = chatTranscriptView(context, options, reader, status, snapshot.workspace);
    const approvals = new ChatApprovals({
      client,
      sessionId: snapshot.id,
      workspace: snapshot.workspace,
      out,
      print: (line) => view.line(line),
      reader,
      stdin: context.stdin,
      stdout: process.stdout,
    });
    const active = new SessionWatcher(client, snapshot.id, view, {
      after: created ? snapshot.cursor : null,
      tail: 10,
      initialHistory: "render",
      onBatch: (batch) => {
        // Attached while a run streams: its message in flight lost its start (shown once committed).
        if (batch.reset?.reason === "initial") view.joinedDuring(batch.reset.snapshot.status.run_id);
        approvals.observe(batch);
        tasks.observe(batch);
        notes.refresh();
      },
    });
    watcher = active;
    let loop: ChatPromptLoop | null = null;
    const approvalMode = new ChatApprovalMode(client, snapshot.id, snapshot.approval_mode, {
      changed: (mode) => {
        view.notice(`approval mode: ${mode}`);
        loop?.refreshPrompt();
      },
      failed: (message) => view.notice(message),
    });
    reader.onShiftTab(() => void approvalMode.cycle());
    usage = () =>
      active.sessionUsage.total > 0 ? `${compactCount(active.sessionUsage.total)} tokens` : null;
    active.seed(snapshot);
    writeLine(out, header(out, snapshot, created));
    // A session whose agent cannot run commands says so before the first prompt (the daemon's
    // shell as connecting found it: it is fixed while the daemon runs, so not asked again).
    if (shell?.mode === "off") writeShellWarning(out, shell);
    active.start();
    await active.connected();
    // The snapshot lists only this session's waiting calls: its agents' are looked up, to be asked first.
    await approvals.lookUpChildrenWaiting();
    loop = new ChatPromptLoop({
      client,
      context,
      sessionId: snapshot.id,
      watcher: active,
      view,
      out,
      reader,
      status,
      approvals,
      approvalMode,
      notes,
    });
    return await loop.loop();
  } finally {
    stopPolling();
    status.end();
    reader.setNotes([]);
    await watcher?.stop();
  }
}

/** The lines above the prompt: the turn's status line, and under it the running tasks and queued prompts. */
function chatStatus(
  reader: PromptReader,
  tasks: ChatTasks,
  out: OutputStream,
  usage: () => string | null,
): { notes: ChatNotes; status: TurnStatus } {
  const notes = new ChatNotes(reader, () => tasks.lines(out.paint, out.columns));
  // Each tick of the turn's status line moves the running tasks' elapsed time too.
  const sink = {
    setStatus: (line: string | null) => {
      reader.setStatus(line);
      notes.refresh();
    },
  };
  return { notes, status: new TurnStatus(sink, usage) };
}

/** While tasks run, their children's tokens every 2 s (the parent's stream says them only at the end). */
function pollTaskTokens(
  client: DaemonClient,
  sessionId: string,
  tasks: ChatTasks,
  notes: ChatNotes,
): () => void {
  const timer = setInterval(() => {
    if (tasks.running.length === 0) return;
    client.listSessions({ parent_id: sessionId }).then(
      (children) => {
        tasks.noteChildren(children);
        notes.refresh();
      },
      // A missed look is made up by the next one; the task's end notice has the final count.
      () => undefined,
    );
  }, 2_000);
  timer.unref();
  return () => clearInterval(timer);
}

/** The chat's transcript: thinking collapsed, writes kept clear of the prompt and its status line. */
function chatTranscriptView(
  context: CliContext,
  options: ChatOptions,
  reader: PromptReader,
  status: TurnStatus,
  workspace: string,
): TranscriptView {
  const out = context.terminal.out;
  return new TranscriptView({
    text: out,
    aside: out,
    showThinking: options.hideThinking !== true,
    showUserEntries: true,
    markdown: out.tty && wantsColor(out.tty, context.env),
    collapseThinking: true,
    readWorkspaceFile: workspaceTextReader(workspace),
    // The status line lives above the prompt; without one (stdin piped), a spinner on a terminal.
    spinner: reader.interactive ? status : new Spinner(out, context.env),
    surroundWrites: {
      before: () => reader.beforeOutput(),
      after: (lineOpen, plain) => {
        status.activity();
        reader.afterOutput(lineOpen, plain);
      },
    },
  });
}

/** 1234 → "1.2k". */
function compactCount(count: number): string {
  return count < 1000 ? String(count) : `${(count / 1000).toFixed(1)}k`;
}

/** The session the chat starts in (see open-session.ts), as a snapshot to show its header from. */
async function openChatSession(
  client: DaemonClient,
  context: CliContext,
  options: ChatOptions,
): Promise<{ snapshot: SessionSnapshot; created: boolean }> {
  const opened = await openSession(client, context.cwd, options);
  if (opened.created) return { snapshot: opened.snapshot, created: true };
  return { snapshot: await client.getSession(opened.sessionId, 0), created: false };
}

/** The dim lines a session's chat starts with: which session, its model and workspace, the keys. */
function header(out: OutputStream, snapshot: SessionSnapshot, created: boolean): string {
  const paint = out.paint;
  const model =
    snapshot.model === null
      ? paint.yellow("no provider configured (see skein config --help)")
      : `${snapshot.model}${snapshot.provider_profile === null ? "" : ` (${snapshot.provider_profile})`}`;
  const agent =
    snapshot.agent === null || snapshot.parent_id === null
      ? ""
      : `agent ${snapshot.agent}'s session, a task of ${snapshot.parent_id.slice(0, 13)} (/parent goes back)\n`;
  return paint.dim(
    `${created ? "new session" : "session"} ${snapshot.id} · ${model} · ${snapshot.workspace}\n${agent}` +
      "Type /help for commands. Ctrl-C interrupts, Ctrl-D exits.",
  );
}
