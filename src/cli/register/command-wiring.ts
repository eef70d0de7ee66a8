/**
 * What each group's registration gets from `main`: the context a command runs with (its home
 * from the global `--home`) and where its exit code goes.
 *
 * Boundary rule: the seam between `main.ts` and the register/ modules; nothing else.
 */
import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";

/** The per-invocation wiring every command registration uses. */
export interface CommandWiring {
  /** The context of the command that runs, with the global `--home` applied. */
  context(command: Command): CliContext;
  /** Records the code `main` resolves with once the command has run. */
  exitWith(code: number): void;
}
