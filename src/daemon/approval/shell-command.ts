/**
 * What an approval rule needs to know about a `run_command` command: whether it does more than
 * run one program (chains, pipes, substitutions, redirections, several lines), and its parts.
 *
 * Boundary rule: pure and deliberately conservative, not a shell parser: quotes are not
 * understood, so a quoted `;` counts as an operator. That can only make an allow rule not apply
 * (the call is then asked) or a deny rule apply to a part that was really quoted text.
 */

/** The operators that make a command more than one simple command. */
const operators = [";", "&", "|", "`", "$(", ">", "<", "\n", "\r"] as const;

/** The operators of `text` (e.g. of a pattern or a command). */
export function shellOperatorsIn(text: string): Set<string> {
  const found = new Set<string>();
  for (const operator of operators) if (text.includes(operator)) found.add(operator);
  return found;
}

/** The simple commands a command is made of: split at every operator, trimmed, empty parts dropped. */
export function commandParts(command: string): string[] {
  return command
    .split(/;|&&|\|\||\||&|`|\$\(|\)|\n|\r/)
    .map((part) => part.trim())
    .filter((part) => part !== "");
}
