/**
 * How failures reach the person at the terminal: one line `skein: <message>` on stderr (plus an
 * optional hint) and an exit code from exit-codes.ts.
 *
 * Boundary rule: commands throw `CliError` for failures they understand; anything else is
 * classified here once (daemon errors by type and problem code), so every command reports the
 * same failure the same way.
 */
import { DaemonApiError, DaemonProtocolError, DaemonUnreachableError } from "../client/api-errors.js";
import { DaemonStartError } from "../client/ensure-daemon.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";

/** A failure with the message and exit code to report. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = exitCodes.error,
    /** A second line telling what to do about it. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/**
 * What `read` returns; a home file it found broken (a `Broken`, which names the file) is a
 * CliError that says to fix or remove it.
 */
export function readHomeFile<T>(
  read: () => T,
  Broken: abstract new (...args: never[]) => Error & { path: string },
): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof Broken)
      throw new CliError(error.message, exitCodes.error, `fix or remove ${error.path}`);
    throw error;
  }
}

/** The message, hint and exit code of any error a command let escape. */
export function describeFailure(error: unknown): { message: string; hint?: string; exitCode: ExitCode } {
  if (error instanceof CliError) {
    return {
      message: error.message,
      exitCode: error.exitCode,
      ...(error.hint === undefined ? {} : { hint: error.hint }),
    };
  }
  if (error instanceof DaemonUnreachableError) {
    return {
      message: error.message,
      hint: "start it with `skein daemon start` (see `skein daemon logs` if it does not come up)",
      exitCode: exitCodes.unreachable,
    };
  }
  if (error instanceof DaemonStartError) return { message: error.message, exitCode: exitCodes.unreachable };
  if (error instanceof DaemonApiError) {
    const exitCode =
      error.status === 404
        ? exitCodes.notFound
        : error.code === "daemon_unavailable"
          ? exitCodes.unreachable
          : exitCodes.error;
    const badWorkspace =
      error.code === "invalid_request" &&
      error.path.startsWith("/sessions") &&
      /workspace/.test(error.detail);
    return {
      message: `${error.detail} (${error.code})`,
      exitCode,
      ...(badWorkspace
        ? { hint: "a session works in a project folder: cd into one (or pass its path) and run skein again" }
        : {}),
    };
  }
  if (error instanceof DaemonProtocolError) return { message: error.message, exitCode: exitCodes.error };
  const code = (error as { code?: unknown } | null)?.code;
  if (code === "ECONNRESET" || code === "ETIMEDOUT") {
    return {
      message: `lost the connection to the daemon (${String(code)})`,
      exitCode: exitCodes.unreachable,
    };
  }
  return { message: errorMessage(error), exitCode: exitCodes.error };
}

/** An error's own message, without the daemon's detail or a hint (what chat notices show). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
