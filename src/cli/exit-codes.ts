/**
 * The exit codes of `skein` (documented in docs/cli.md; scripts rely on them).
 *
 * Boundary rule: the single list; commands return these names, never bare numbers. The code
 * shared with the daemon's starters (75) is the contract's (src/home/exit-codes.ts).
 */
import { homeLockedExitCode } from "../home/exit-codes.js";

export const exitCodes = {
  /** Success. */
  ok: 0,
  /** The command failed: a turn failed, the provider answered an error, the daemon refused a request. */
  error: 1,
  /** Bad usage: unknown command or option, missing argument, ambiguous session id. */
  usage: 2,
  /** No daemon could be reached or started. */
  unreachable: 3,
  /** The session (or input, profile) named does not exist. */
  notFound: 4,
  /** `skein run` only: the turn waits for an approval (or a question) and `--approve` was not given. */
  approvalNeeded: 5,
  /** `skein run` only: a budget stopped the turn before its next model request (`budget_exhausted`). */
  budgetExhausted: 6,
  /** `skein daemon run` only: another daemon already owns this home (EX_TEMPFAIL). */
  homeLocked: homeLockedExitCode,
  /** Interrupted by Ctrl-C (the running turn was interrupted). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];
