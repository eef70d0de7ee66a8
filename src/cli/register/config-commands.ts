/**
 * `skein config add|list|remove|use|test`: the provider profiles of config.json.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `config` and its subcommands on the program. */
export function registerConfigCommands(program: Command, wiring: CommandWiring): void {
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
    .action(lazyAction(wiring, () => import("../commands/provider-config.js"), "addProfile"));
  config
    .command("list")
    .description("list provider profiles (* marks the active one; keys are never shown)")
    .option("--json", "print as JSON")
    .action(lazyAction(wiring, () => import("../commands/provider-config.js"), "listProfiles"));
  config
    .command("remove")
    .alias("rm")
    .description("remove a provider profile")
    .argument("<name>")
    .action(lazyAction(wiring, () => import("../commands/provider-config.js"), "removeProfile"));
  config
    .command("use")
    .description("make a profile the active one (used by new sessions)")
    .argument("<name>")
    .action(lazyAction(wiring, () => import("../commands/provider-config.js"), "useProfile"));
  config
    .command("test")
    .description("send one tiny request to a provider (default: the active profile) and report what happened")
    .argument("[name]")
    .option("--timeout <seconds>", "give up after this long", wholeNumber, 30)
    .action(lazyAction(wiring, () => import("../commands/provider-config.js"), "testProfile"));
}
