/**
 * Process exit codes that one side of the contract sets and the other reads.
 *
 * Boundary rule: only codes that cross a process boundary live here; the CLI's own list
 * (src/cli/exit-codes.ts) takes them from this file.
 */

/**
 * `skein daemon run` exits with this when another daemon already owns the home (EX_TEMPFAIL),
 * so a starter that lost the race for the home lock waits for the winner instead of failing.
 */
export const homeLockedExitCode = 75;
