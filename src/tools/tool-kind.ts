/**
 * One kind of built-in tool: its name, its input schema and, per workspace (or shell), the
 * `ToolDefinition` whose calls get validated input. The schema is compiled once per kind, not
 * once per session.
 *
 * Boundary rule: wiring only; what a call does is the tool's own run function.
 */
import type { JsonObject } from "../model/json.js";
import type { ToolContext, ToolDefinition, ToolMeta, ToolOutput } from "../model/tools.js";
import { type HiddenPaths, NO_HIDDEN_PATHS } from "./hidden-paths.js";
import { toolInputParser } from "./tool-input.js";

/** What a tool does with one call's validated input. */
export type ToolRun<I> = (input: I, context: ToolContext) => Promise<ToolOutput>;

/** Makes the definitions of tool `name`: a description and a run function give one. */
export type ToolKind<I> = (description: string, run: ToolRun<I>) => ToolDefinition;

/** The kind of tool `name` taking input `I`, which `inputSchema` describes. */
export function toolKind<I>(name: string, inputSchema: JsonObject): ToolKind<I> {
  const parseInput = toolInputParser<I>(name, inputSchema);
  // One meta while the description stays the same: each turn makes its tools anew, and what
  // is derived from a meta (its request JSON, its token estimate) is kept per meta object.
  let kept: ToolMeta | null = null;
  return (description, run) => {
    if (kept === null || kept.description !== description) {
      kept = { name, description, input_schema: inputSchema };
    }
    const meta = kept;
    return () => ({
      meta,
      tool: {
        async execute(inputJson, context) {
          return run(parseInput(inputJson), context);
        },
      },
    });
  };
}

/** A tool confined to `workspace` and kept off the `hidden` paths. */
export type WorkspaceTool = (workspace: string, hidden?: HiddenPaths) => ToolDefinition;

/** The workspace tool `name`: each call runs `run` in the tool's workspace with its validated input. */
export function workspaceTool<I>(
  name: string,
  inputSchema: JsonObject,
  description: string,
  run: (workspace: string, hidden: HiddenPaths, input: I) => Promise<ToolOutput>,
): WorkspaceTool {
  const kind = toolKind<I>(name, inputSchema);
  return (workspace, hidden = NO_HIDDEN_PATHS) => kind(description, (input) => run(workspace, hidden, input));
}
