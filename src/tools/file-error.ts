/** A filesystem failure of a file tool, as the model should read it. */
import { ToolError } from "../model/tools.js";
import { errorCode, errorMessage } from "./system-error.js";

/** A filesystem failure on `requested` (the path as the model wrote it) as a `ToolError`. */
export function fileError(requested: string, error: unknown): ToolError {
  switch (errorCode(error)) {
    case "ENOENT":
      return new ToolError("execution_failed", `"${requested}" does not exist`);
    case "ENOTDIR":
      return new ToolError("execution_failed", `a parent of "${requested}" is not a directory`);
    case "EISDIR":
      return new ToolError("execution_failed", `"${requested}" is a directory, not a file`);
    case "EACCES":
    case "EPERM":
      return new ToolError("execution_failed", `permission denied for "${requested}"`);
    case "ELOOP":
      return new ToolError(
        "execution_failed",
        `"${requested}" is a symbolic link that could not be followed`,
      );
    default:
      return new ToolError("execution_failed", `cannot access "${requested}": ${errorMessage(error)}`);
  }
}
