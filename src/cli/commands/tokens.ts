/**
 * `skein token create|list|revoke`: named API tokens through the daemon's `/tokens` routes.
 *
 * Boundary rule: each command is one or two requests; the daemon checks names and roles.
 */
import { isRole, roles } from "../../api/roles.js";
import { type CliContext, connect } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { writeLine } from "../render/terminal.js";
import { resolveSessionId } from "../session-ref.js";

/** `skein token create NAME --role ROLE [--session ID]`: prints the token alone. */
export async function createToken(
  context: CliContext,
  name: string,
  options: { role: string; session?: string },
): Promise<ExitCode> {
  if (!isRole(options.role)) {
    throw new CliError(
      `--role must be one of ${roles.join(", ")}, got ${JSON.stringify(options.role)}`,
      exitCodes.usage,
    );
  }
  const client = await connect(context);
  try {
    const created = await client.tokens.create({
      name,
      role: options.role,
      ...(options.session === undefined
        ? {}
        : { session_id: await resolveSessionId(client, options.session) }),
    });
    writeLine(context.terminal.out, created.token);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** `skein token list`: one line a token. */
export async function listTokens(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const client = await connect(context);
  try {
    const tokens = await client.tokens.list();
    const out = context.terminal.out;
    if (options.json === true) {
      writeLine(out, JSON.stringify(tokens, null, 2));
      return exitCodes.ok;
    }
    if (tokens.length === 0) writeLine(out, "no named tokens (create one with skein token create)");
    for (const token of tokens) {
      const scope = token.session_id === null ? "every session" : `session ${token.session_id}`;
      writeLine(out, `${token.name}  ${token.role}  ${scope}  created ${token.created_at}`);
    }
    return exitCodes.ok;
  } finally {
    client.close();
  }
}

/** `skein token revoke NAME`. */
export async function revokeToken(context: CliContext, name: string): Promise<ExitCode> {
  const client = await connect(context);
  try {
    await client.tokens.revoke(name);
    writeLine(context.terminal.out, `revoked token ${name}`);
    return exitCodes.ok;
  } finally {
    client.close();
  }
}
