/**
 * `skein token create|list|revoke`: named API tokens with a role, for other people and devices.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

const commands = () => import("../commands/tokens.js");
const deviceCommands = () => import("../commands/devices.js");

/** Register `devices` and its subcommand on the program. */
export function registerDeviceCommands(program: Command, wiring: CommandWiring): void {
  const devices = program
    .command("devices")
    .description("paired phones and tablets (skein web --device NAME pairs one): list, revoke")
    .option("--json", "print the daemon's GET /devices answer")
    .addHelpText(
      "after",
      `
A device is a browser signed in by a one-time pairing link with a role (approver unless
--role says otherwise), for 90 days. Revoking it refuses its cookie from its next request on,
on every node; signing out in its browser revokes it too.

Examples:
  $ skein web --device phone
  $ skein devices
  $ skein devices revoke phone`,
    )
    .action(lazyAction(wiring, deviceCommands, "listDevices"));
  devices
    .command("list")
    .alias("ls")
    .description("list the devices: name, role, session, paired or waiting, last seen")
    .option("--json", "print the daemon's GET /devices answer")
    .action(lazyAction(wiring, deviceCommands, "listDevices"));
  devices
    .command("revoke")
    .alias("rm")
    .description("revoke a device: its browser is signed out at its next request, on every node")
    .argument("<name>", "the device's name")
    .action(lazyAction(wiring, deviceCommands, "revokeDevice"));
}

/** Register `token` and its subcommands on the program. */
export function registerTokenCommands(program: Command, wiring: CommandWiring): void {
  const token = program
    .command("token")
    .description("named API tokens: each with a role (viewer, approver, driver, admin), revocable")
    .addHelpText(
      "after",
      `
Roles include the ones before them: viewer reads sessions, streams and history; approver also
answers approvals and questions; driver also sends inputs, interrupts, forks, compacts and changes
settings; admin also changes the config, manages tokens and deletes. The daemon keeps only a
digest of each token; a revoked token is refused from its next request on, on every node.

Examples:
  $ skein token create phone --role approver
  $ skein token create ci --role driver --session 0190f6b2-...
  $ skein token list
  $ skein token revoke phone`,
    );
  token
    .command("create")
    .description("create a token and print it (alone on stdout; it is not shown again)")
    .argument("<name>", "the token's name (letters, digits, . _ -)")
    .requiredOption("--role <role>", "viewer, approver, driver or admin")
    .option("--session <id>", "the one session the token may reach (id, unique id prefix or name)")
    .action(lazyAction(wiring, commands, "createToken"));
  token
    .command("list")
    .alias("ls")
    .description("list the tokens: name, role, session, creation time (never the secret)")
    .option("--json", "print the daemon's GET /tokens answer")
    .action(lazyAction(wiring, commands, "listTokens"));
  token
    .command("revoke")
    .alias("rm")
    .description("revoke a token: refused from its next request on, on every node")
    .argument("<name>", "the token's name")
    .action(lazyAction(wiring, commands, "revokeToken"));
}
