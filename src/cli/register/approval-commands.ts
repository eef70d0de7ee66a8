/**
 * `skein approve`, `skein deny`, `skein resolve` and `skein approvals`: answering the tool calls that wait.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

/** Register `approve`, `deny`, `resolve` and `approvals` on the program. */
export function registerApprovalCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("approve")
    .description("allow a tool call that waits for approval")
    .argument("<session>", "session id, unique id prefix or name")
    .argument("<call>", "the call's id (or a unique prefix), as `skein approvals` lists it")
    .option("-a, --always", "also allow matching calls for the rest of the session")
    .option("-m, --message <text>", "the reply, for an ask_user question")
    .addHelpText(
      "after",
      '\nExamples:\n  $ skein approvals\n  $ skein approve 01a2b3c4-d5 call_7Hq\n  $ skein approve 01a2b3c4-d5 call_9 -m "blue"',
    )
    .action(lazyAction(wiring, () => import("../commands/approve.js"), "answerCall", "allow"));

  program
    .command("deny")
    .description("refuse a tool call that waits for approval (the model is told, with your message)")
    .argument("<session>", "session id, unique id prefix or name")
    .argument("<call>", "the call's id (or a unique prefix)")
    .option("-m, --message <text>", "why, or what to do instead (the model reads it)")
    .addHelpText("after", '\nExample:\n  $ skein deny 01a2b3c4-d5 call_7Hq -m "use the Makefile instead"')
    .action(lazyAction(wiring, () => import("../commands/approve.js"), "answerCall", "deny"));

  program
    .command("resolve")
    .description("say what became of a tool call a daemon restart cut short (its outcome unknown)")
    .argument("<session>", "session id, unique id prefix or name")
    .argument("<call>", "the call's id (or a unique prefix)")
    .argument("<decision>", "retry (run it again), skip (it did not run) or done (it ran)")
    .option("-m, --message <text>", "done: the call's result; skip: why (the model reads it)")
    .addHelpText(
      "after",
      '\nExamples:\n  $ skein resolve 01a2b3c4-d5 call_7Hq retry\n  $ skein resolve 01a2b3c4-d5 call_7Hq done -m "deployed v2"',
    )
    .action(lazyAction(wiring, () => import("../commands/approve.js"), "resolveCall"));

  program
    .command("approvals")
    .description("list the tool calls that wait for approval (of one session, or of all)")
    .argument("[session]", "session id, unique id prefix or name")
    .option("--json", "print them as JSON")
    .action(lazyAction(wiring, () => import("../commands/approve.js"), "listApprovals"));
}
