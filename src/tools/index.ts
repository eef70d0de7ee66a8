/** Built-in tools confined to a session's workspace. */
export * from "./bubblewrap.js";
export * from "./builtin-tools.js";
export * from "./edit-file.js";
export * from "./list-files.js";
export * from "./output-limit.js";
export * from "./read-file.js";
export * from "./run-command.js";
export * from "./shell-mode.js";
export * from "./tool-input.js";
export * from "./workspace-file.js";
export * from "./workspace-path.js";
export * from "./write-file.js";
