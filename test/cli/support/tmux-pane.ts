/**
 * A real pseudo-terminal for interactive CLI tests: one tmux server (on its own socket) running
 * one command in a detached session; the test types keys and reads the screen.
 *
 * Boundary rule: test support only; every server it starts is killed by `close()`.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

/** Whether tmux can be run here. */
export function tmuxAvailable(): boolean {
  return spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;
}

function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

export class TmuxPane {
  private constructor(private readonly socket: string) {}

  /**
   * Run `command` (argv) with exactly `env` in `cwd`. When it ends the pane shows
   * `[exit <code>]` and stays open, so tests can read the exit code.
   */
  static start(
    command: readonly string[],
    options: { cwd: string; env: Record<string, string>; width?: number; height?: number },
  ): TmuxPane {
    const socket = `skein-test-${process.pid}-${randomBytes(4).toString("hex")}`;
    const assignments = Object.entries(options.env).map(([key, value]) => quote(`${key}=${value}`));
    const shell = `env -i ${assignments.join(" ")} ${command.map(quote).join(" ")}; echo "[exit $?]"; sleep 600`;
    execFileSync("tmux", [
      "-L",
      socket,
      "-f",
      "/dev/null",
      "new-session",
      "-d",
      "-s",
      "main",
      "-x",
      String(options.width ?? 120),
      "-y",
      String(options.height ?? 40),
      "-c",
      options.cwd,
      shell,
    ]);
    return new TmuxPane(socket);
  }

  /** The screen and its scrollback as plain text. */
  capture(): string {
    return execFileSync("tmux", ["-L", this.socket, "capture-pane", "-p", "-J", "-S", "-", "-t", "main"], {
      encoding: "utf8",
    });
  }

  /** The visible screen only (cheap however long the scrollback has grown). */
  captureVisible(): string {
    return execFileSync("tmux", ["-L", this.socket, "capture-pane", "-p", "-t", "main"], {
      encoding: "utf8",
    });
  }

  /** The screen with its colours (escape sequences kept). */
  captureStyled(): string {
    return execFileSync(
      "tmux",
      ["-L", this.socket, "capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "main"],
      {
        encoding: "utf8",
      },
    );
  }

  /** Where the terminal's cursor is (0-based column and row of the visible screen). */
  cursor(): { x: number; y: number } {
    const [x, y] = execFileSync(
      "tmux",
      ["-L", this.socket, "display-message", "-p", "-t", "main", "#{cursor_x} #{cursor_y}"],
      { encoding: "utf8" },
    )
      .trim()
      .split(" ")
      .map(Number);
    return { x: x!, y: y! };
  }

  /** Type literal text. */
  type(text: string): void {
    execFileSync("tmux", ["-L", this.socket, "send-keys", "-t", "main", "-l", text]);
  }

  /** Press keys by tmux name ("Enter", "C-c", "C-d"). */
  press(...keys: string[]): void {
    execFileSync("tmux", ["-L", this.socket, "send-keys", "-t", "main", ...keys]);
  }

  /**
   * Paste `text` as a terminal paste (bracketed when the program asked for it). tmux sends each
   * line feed as a carriage return, as terminals do; `raw` sends the bytes as they are.
   */
  paste(text: string, options: { raw?: boolean } = {}): void {
    // Through stdin: a long text does not fit on tmux's command line.
    execFileSync("tmux", ["-L", this.socket, "load-buffer", "-b", "test", "-"], { input: text });
    const raw = options.raw === true ? ["-r"] : [];
    execFileSync("tmux", ["-L", this.socket, "paste-buffer", "-p", ...raw, "-d", "-b", "test", "-t", "main"]);
  }

  /** Set a server option (e.g. `set-clipboard on`). */
  setOption(name: string, value: string): void {
    execFileSync("tmux", ["-L", this.socket, "set-option", "-s", name, value]);
  }

  /** The newest paste buffer (what a program copied with OSC 52 when `set-clipboard` is on). */
  buffer(): string {
    return execFileSync("tmux", ["-L", this.socket, "show-buffer"], { encoding: "utf8" });
  }

  /** Kill the tmux server and everything in it. */
  close(): void {
    spawnSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
  }
}
