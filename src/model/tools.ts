/** Tool types shared by the Worker (which runs tools) and providers (which describe them to models). */
import type { JsonObject } from "./json.js";

/** What a model is told about a tool. `input_schema` is a JSON Schema object. */
export interface ToolMeta {
  name: string;
  description: string;
  input_schema: JsonObject;
  /**
   * Not offered to the model, yet run when it calls the tool by name: a tool the session may not
   * use now that answers with why (clearer than "Tool not found").
   */
  unlisted?: boolean;
}

/** Context a tool gets for one call. */
export interface ToolContext {
  call_id: string;
  /** Aborted when the run is cancelled; long-running tools should stop promptly. */
  signal: AbortSignal;
}

/** A tool's answer: plain text, or text flagged as an error for the model. */
export type ToolOutput = string | { output: string; is_error?: boolean };

/** A runnable tool. Throwing (any error) produces an `is_error` result carrying the message. */
export interface Tool {
  execute(inputJson: string, context: ToolContext): Promise<ToolOutput>;
}

/**
 * A tool definition is a factory, evaluated when the Worker is locked, so a definition can be
 * registered before the resources it needs exist.
 */
export type ToolDefinition = () => { meta: ToolMeta; tool: Tool };

/** A typed tool failure; its message becomes the error result the model sees. */
export class ToolError extends Error {
  constructor(
    readonly kind: "invalid_argument" | "execution_failed" | "internal",
    message: string,
  ) {
    super(message);
    this.name = "ToolError";
  }
}
