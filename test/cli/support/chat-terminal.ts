/**
 * `skein chat` in a tmux pane against a test daemon: start it, wait for text or for the bare
 * prompt, and keep a captured screen as a readable fixture (test/cli/fixtures/<name>.txt).
 *
 * Boundary rule: test support only; the panes it starts are closed by `closeAll()`.
 */
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import type { DaemonHarness } from "../../e2e/support/daemon-harness.js";
import { eventually, skeinBin } from "./cli-harness.js";
import { TmuxPane } from "./tmux-pane.js";

const fixtures = join(import.meta.dirname, "..", "fixtures");

/** Chats started on one daemon, with the waits every interactive test needs. */
export class ChatTerminals {
  readonly #panes: TmuxPane[] = [];

  // The holder, not the daemon: a describe's daemon starts after its terminals are made.
  constructor(private readonly on: { readonly daemon: DaemonHarness }) {}

  /** `skein args…` in the daemon's workspace, on a real terminal. */
  start(
    args: readonly string[] = [],
    options: { env?: Record<string, string>; cwd?: string; width?: number } = {},
  ): TmuxPane {
    const pane = TmuxPane.start([process.execPath, skeinBin, ...args], {
      cwd: options.cwd ?? this.on.daemon.workspace,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: this.on.daemon.root,
        SKEIN_HOME: this.on.daemon.home,
        SKEIN_NO_AUTOSTART: "1",
        TERM: "screen",
        ...options.env,
      },
      ...(options.width === undefined ? {} : { width: options.width }),
    });
    this.#panes.push(pane);
    return pane;
  }

  closeAll(): void {
    for (const pane of this.#panes.splice(0)) pane.close();
  }
}

/** Chats on the daemon `on` holds, for the enclosing `describe`, closed after each test. */
export function useChatTerminals(on: { readonly daemon: DaemonHarness }): ChatTerminals {
  const terminals = new ChatTerminals(on);
  afterEach(() => terminals.closeAll());
  return terminals;
}

/** Wait until the screen contains `needle`; resolves with the screen. */
export function screenShows(pane: TmuxPane, needle: string | RegExp, timeoutMs = 10_000): Promise<string> {
  return eventually(
    () => {
      const screen = pane.capture();
      return (typeof needle === "string" ? screen.includes(needle) : needle.test(screen)) ? screen : null;
    },
    () => `${String(needle)} never appeared; screen:\n${pane.capture()}`,
    timeoutMs,
  );
}

/**
 * Wait until the prompt is shown (the last line is the bare prompt mark): keys typed before it
 * would meet a terminal not yet in raw mode, echoed by the terminal itself (and a Ctrl-C would
 * be a signal to a program still starting).
 */
export async function promptReady(pane: TmuxPane, timeoutMs = 10_000): Promise<void> {
  await eventually(
    () => {
      const lines = pane.capture().trimEnd().split("\n");
      // During a turn the prompt is shown too, under the turn's status line.
      return lines.at(-1)?.trim() === "›" && lines.at(-2)?.endsWith("Ctrl-C interrupts") !== true
        ? true
        : null;
    },
    () => `the prompt never appeared; screen:\n${pane.capture()}`,
    timeoutMs,
  );
}

/** The screen with what changes between runs (ids, paths, counts, times) replaced by placeholders. */
function stableScreen(screen: string, daemon: DaemonHarness): string {
  return `${screen
    .replaceAll(daemon.workspace, "<workspace>")
    .replaceAll(daemon.root, "<root>")
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/\b\d+(\.\d+)? ?(ms|s)\b/g, "<time>")
    .replace(/\b\d+ (in|out|tokens)\b/g, "<n> $1")
    .replace(/context \d+% of \d+k/g, "context <n>% of <n>k")
    .replace(/\[exit \d+\]\n?/, "")
    .trimEnd()}\n`;
}

/** Compare the screen with its fixture (written on first run or with `vitest -u`). */
export async function matchesFixture(screen: string, daemon: DaemonHarness, name: string): Promise<void> {
  await expect(stableScreen(screen, daemon)).toMatchFileSnapshot(join(fixtures, `${name}.txt`));
}
