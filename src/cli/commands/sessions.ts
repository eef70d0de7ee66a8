/**
 * `skein sessions`: the daemon's sessions, newest activity first.
 *
 * Boundary rule: listing only (GET /sessions).
 */

import { agentsBeneathParents } from "../../api/session-tree.js";
import { type CliContext, connect } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { sessionTable } from "../render/session-table.js";
import { writeLine } from "../render/terminal.js";

export interface SessionsOptions {
  json?: boolean;
  limit?: number;
  /** Only sessions whose workspace is the current directory. */
  here?: boolean;
}

/** Print the session table (or JSON). */
export async function listSessions(context: CliContext, options: SessionsOptions): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const all = await client.listSessions();
    let sessions = all;
    if (options.here === true) sessions = sessions.filter((session) => session.workspace === context.cwd);
    if (options.limit !== undefined) sessions = sessions.slice(0, options.limit);
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(out, JSON.stringify(sessions, null, 2));
      return exitCodes.ok;
    }
    if (sessions.length === 0) {
      writeLine(out, out.paint.dim('no sessions yet; start one with `skein` or `skein run "…"`'));
      return exitCodes.ok;
    }
    // Prefixes unique among every session, not only the rows shown: `-n 1` must not print an
    // 8-character prefix that other sessions share; tokens count every child's, listed or not.
    const rows = agentsBeneathParents(sessions).map((row) => row.session);
    for (const line of sessionTable(rows, out, Date.now(), all)) writeLine(out, line);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}
