/**
 * The environment a local MCP server runs with: a few harmless variables of the daemon's (so
 * `npx`, `node`, `python` and locales work) plus what its config sets. Nothing else of the
 * daemon's environment reaches it, so neither the daemon's token nor provider API keys leak to a
 * server unless its config names them (`"env": {"KEY": "${env:KEY}"}`).
 *
 * Boundary rule: pure.
 */

/** The daemon's variables every stdio server inherits. */
const inheritedVariables = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "TMPDIR",
  "TZ",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
] as const;

/**
 * The whole environment of a stdio server: the inherited variables, then `sandboxed` (what the
 * sandbox sets: its own HOME and TMPDIR), then `configured` over them.
 */
export function serverEnvironment(
  daemonEnv: NodeJS.ProcessEnv,
  configured: Record<string, string>,
  sandboxed: Record<string, string> = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of inheritedVariables) {
    const value = daemonEnv[name];
    // A value starting with "()" is an exported shell function; never pass those on.
    if (value !== undefined && !value.startsWith("()")) env[name] = value;
  }
  return { ...env, ...sandboxed, ...configured };
}
