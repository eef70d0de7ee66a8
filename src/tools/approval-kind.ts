/**
 * What each built-in tool does, as the approval modes see it: it reads, edits workspace files,
 * runs commands, reaches the network, or asks the user. One table keyed by tool name, so a new
 * tool is classified where it is listed (names listed before their tool exists classify nothing
 * until it does). A tool not in the table (an MCP server's) counts as `external`, which the
 * modes treat like a command.
 *
 * Boundary rule: data only; the daemon's approval policy decides what each kind may do.
 */

/** The kinds of tools the approval modes tell apart. */
export type ToolApprovalKind = "read" | "edit" | "command" | "network" | "ask_user" | "external";

/** A built-in tool as the approval policy sees it. */
export interface ToolApprovalTraits {
  readonly kind: ToolApprovalKind;
  /**
   * Whether its `path` argument names a file or directory of the workspace: such a call with a
   * path outside the workspace is denied whatever the rules and the mode say.
   */
  readonly workspacePath: boolean;
}

const read = { kind: "read", workspacePath: true } as const;
const edit = { kind: "edit", workspacePath: true } as const;

/** The built-in tools, by the name the model sees. */
export const toolApprovalTraits: ReadonlyMap<string, ToolApprovalTraits> = new Map<
  string,
  ToolApprovalTraits
>([
  ["read_file", read],
  ["list_files", read],
  ["grep", read],
  ["glob", read],
  ["todo_write", { kind: "read", workspacePath: false }],
  ["write_file", edit],
  ["edit_file", edit],
  ["apply_patch", { kind: "edit", workspacePath: false }],
  ["run_command", { kind: "command", workspacePath: false }],
  ["web_fetch", { kind: "network", workspacePath: false }],
  ["ask_user", { kind: "ask_user", workspacePath: false }],
  // Delegating reads nothing itself: the child's own tools are judged by the child's policy and mode.
  ["task", { kind: "read", workspacePath: false }],
]);

const external: ToolApprovalTraits = { kind: "external", workspacePath: false };

/** How the approval policy sees a call of `tool`: a built-in's traits, or `external` for any other. */
export function approvalTraitsOf(tool: string): ToolApprovalTraits {
  return toolApprovalTraits.get(tool) ?? external;
}
