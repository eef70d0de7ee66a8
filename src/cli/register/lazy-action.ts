/**
 * The action most commands have: import the command's module when the command runs (main.ts says
 * why), call one of its functions with the command's context, any fixed leading arguments (which
 * way a shared function goes) and commander's arguments, and exit with the code it returns.
 *
 * Boundary rule: registration only; nothing here runs before a command is chosen.
 */
import type { Command } from "commander";
import type { CliContext } from "../cli-context.js";
import type { CommandWiring } from "./command-wiring.js";

/** A command module's entry: the context first, then commander's arguments and options. */
type CommandFunction = (context: CliContext, ...args: never[]) => number | Promise<number>;

/** A commander action that loads `load()` when it runs and calls its export `name`, `leading` first. */
export function lazyAction<Name extends string, Module extends Record<Name, CommandFunction>>(
  { context, exitWith }: CommandWiring,
  load: () => Promise<Module>,
  name: Name,
  ...leading: unknown[]
): (...args: unknown[]) => Promise<void> {
  return async (...args) => {
    // commander passes the declared arguments, then the options, then the command itself
    const command = args[args.length - 1] as Command;
    const run = (await load())[name] as unknown as (
      context: CliContext,
      ...args: unknown[]
    ) => number | Promise<number>;
    exitWith(await run(context(command), ...leading, ...args.slice(0, -1)));
  };
}
