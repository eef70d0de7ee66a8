/**
 * Session references on the command line: a full id, any unique prefix of one (dashes
 * optional), or a session's exact name.
 *
 * Boundary rule: resolution against `GET /sessions` only; an unknown reference is a
 * not-found error, an ambiguous one a usage error listing the candidates.
 */
import type { SessionSummary } from "../api/session-snapshot.js";
import type { DaemonClient } from "../client/daemon-client.js";
import { type CliContext, connect } from "./cli-context.js";
import { CliError } from "./cli-error.js";
import { exitCodes } from "./exit-codes.js";

const fullId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The one session `ref` names among `sessions`; throws CliError otherwise. */
export function pickSession(sessions: readonly SessionSummary[], ref: string): SessionSummary {
  const wanted = ref.trim().toLowerCase();
  if (wanted === "") throw new CliError("a session id is needed", exitCodes.usage);
  const key = wanted.replaceAll("-", "");
  const byPrefix = sessions.filter((session) => session.id.replaceAll("-", "").startsWith(key));
  if (byPrefix.length === 1) return byPrefix[0]!;
  if (byPrefix.length > 1) {
    const exact = byPrefix.find((session) => session.id === wanted);
    if (exact !== undefined) return exact;
    const shown = byPrefix
      .slice(0, 10)
      .map((session) => `  ${session.id}  ${session.name ?? ""}  ${session.preview.text.slice(0, 40)}`);
    throw new CliError(
      `session id prefix "${ref}" is ambiguous: it matches ${byPrefix.length} sessions:\n${shown.join("\n")}${byPrefix.length > 10 ? "\n  …" : ""}`,
      exitCodes.usage,
      "type more characters of the id",
    );
  }
  const byName = sessions.filter((session) => session.name === ref);
  if (byName.length === 1) return byName[0]!;
  if (byName.length > 1) {
    throw new CliError(
      `${byName.length} sessions are named "${ref}"; use an id prefix instead`,
      exitCodes.usage,
    );
  }
  throw new CliError(
    `no session matches "${ref}"`,
    exitCodes.notFound,
    "list sessions with `skein sessions`",
  );
}

/** The full id of the session `ref` names (a full id is taken as is, without a lookup). */
export async function resolveSessionId(client: DaemonClient, ref: string): Promise<string> {
  if (fullId.test(ref.trim().toLowerCase())) return ref.trim().toLowerCase();
  return pickSession(await client.listSessions(), ref).id;
}

/** For each id, its shortest prefix (at least `minimum` characters) that no other id shares. */
export function uniquePrefixes(ids: readonly string[], minimum = 8): Map<string, string> {
  const sorted = [...ids].sort();
  const result = new Map<string, string>();
  sorted.forEach((id, i) => {
    const common = (other: string | undefined): number => {
      if (other === undefined) return 0;
      let n = 0;
      while (n < id.length && id[n] === other[n]) n++;
      return n;
    };
    let length = Math.max(minimum, Math.max(common(sorted[i - 1]), common(sorted[i + 1])) + 1);
    // Never end a prefix on a dash.
    if (id[length - 1] === "-") length += 1;
    result.set(id, id.slice(0, Math.min(id.length, length)));
  });
  return result;
}

/**
 * Connect to the daemon, resolve `ref`, and run `work` with the client and the session's id;
 * the connection is closed after it, however it ends.
 */
export async function withSession<T>(
  context: CliContext,
  ref: string,
  work: (client: DaemonClient, id: string) => Promise<T>,
): Promise<T> {
  const client = await connect(context);
  try {
    return await work(client, await resolveSessionId(client, ref));
  } finally {
    client.close();
  }
}
