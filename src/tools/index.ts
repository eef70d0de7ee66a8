/** Built-in tools confined to a session's workspace. */

export * from "./apply-patch.js";
export * from "./approval-kind.js";
export * from "./bubblewrap.js";
export * from "./builtin-tools.js";
export * from "./edit-file.js";
export * from "./file-error.js";
export * from "./glob.js";
export * from "./grep.js";
export * from "./grep-ripgrep.js";
export * from "./grep-search.js";
export * from "./hidden-paths.js";
export * from "./list-files.js";
export * from "./output-limit.js";
export * from "./path-containment.js";
export * from "./pinned-directory.js";
export * from "./read-file.js";
export * from "./run-command.js";
export * from "./sandbox-mounts.js";
export * from "./shell-mode.js";
export * from "./socket-filter.js";
export * from "./todo-write.js";
export * from "./tool-input.js";
export * from "./tool-kind.js";
export * from "./workspace-file.js";
export * from "./workspace-path.js";
export * from "./write-file.js";
