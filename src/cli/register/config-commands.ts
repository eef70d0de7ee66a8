/**
 * `skein config add|list|remove|use|test`: the provider profiles of config.json.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `config` and its subcommands on the program. */
export function registerConfigCommands(program: Command, { context, exitWith }: CommandWiring): void {
  const config = program
    .command("config")
    .description("manage provider profiles ($SKEIN_HOME/config.json)")
    .addHelpText(
      "after",
      `
Examples:
  $ skein config add openai --protocol responses --model gpt-5-mini --api-key-env OPENAI_API_KEY
  $ skein config add claude --protocol anthropic --model claude-sonnet-4-5 --api-key-env ANTHROPIC_API_KEY
  $ skein config add gemini --protocol gemini --model gemini-2.5-flash --api-key-env GEMINI_API_KEY
  $ skein config add local --protocol chat_completions --base-url http://localhost:11434/v1 --model qwen3:8b
  $ skein config list
  $ skein config use claude
  $ skein config test`,
    );
  config
    .command("add")
    .description("add (or replace) a provider profile; the first one becomes active")
    .argument("<name>", "profile name (letters, digits, . _ -)")
    .requiredOption("--protocol <protocol>", "chat_completions | responses | anthropic | gemini")
    .requiredOption("--model <model>", "model name as the provider knows it")
    .option("--base-url <url>", "API root (default: the vendor's public endpoint)")
    .option("--api-key-env <var>", "read the API key from this environment variable (of the daemon)")
    .option("--api-key <key>", 'store the API key in config.json (mode 0600); "-" reads it from stdin')
    .option("--header <header...>", 'extra HTTP header "Name: value" (repeatable)')
    .option("--use", "make it the active profile")
    .addHelpText(
      "after",
      `
Examples:
  $ skein config add openai --protocol responses --model gpt-5-mini --api-key-env OPENAI_API_KEY
  $ skein config add ollama --protocol chat_completions --base-url http://localhost:11434/v1 --model qwen3:8b
  $ printf %s "$KEY" | skein config add work --protocol anthropic --model claude-sonnet-4-5 --api-key -`,
    )
    .action(async (name: string, options, command: Command) => {
      const { addProfile } = await import("../commands/provider-config.js");
      exitWith(await addProfile(context(command), name, options));
    });
  config
    .command("list")
    .description("list provider profiles (* marks the active one; keys are never shown)")
    .option("--json", "print as JSON")
    .action(async (options, command: Command) => {
      const { listProfiles } = await import("../commands/provider-config.js");
      exitWith(listProfiles(context(command), options));
    });
  config
    .command("remove")
    .alias("rm")
    .description("remove a provider profile")
    .argument("<name>")
    .action(async (name: string, _options, command: Command) => {
      const { removeProfile } = await import("../commands/provider-config.js");
      exitWith(await removeProfile(context(command), name));
    });
  config
    .command("use")
    .description("make a profile the active one (used by new sessions)")
    .argument("<name>")
    .action(async (name: string, _options, command: Command) => {
      const { useProfile } = await import("../commands/provider-config.js");
      exitWith(await useProfile(context(command), name));
    });
  config
    .command("test")
    .description("send one tiny request to a provider (default: the active profile) and report what happened")
    .argument("[name]")
    .option("--timeout <seconds>", "give up after this long", wholeNumber, 30)
    .action(async (name: string | undefined, options: { timeout: number }, command: Command) => {
      const { testProfile } = await import("../commands/provider-config.js");
      exitWith(await testProfile(context(command), name, { timeoutMs: options.timeout * 1000 }));
    });
}
