#!/usr/bin/env node
// The `skein` command. The TypeScript sources are compiled to dist/ by `npm ci` (the package's
// `prepare` script runs `npm run build`).
import { leaveOnBrokenPipe, leavingOnBrokenPipe } from "../dist/cli/broken-pipe.js";
import { main } from "../dist/cli/main.js";

// A reader that went away (`skein sessions | head`) is not an error: stop quietly, like other
// Unix tools, instead of crashing on EPIPE; a command's cleanup (`skein run` interrupts its
// turn) runs first.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error) => {
    if (error.code === "EPIPE" || leavingOnBrokenPipe()) {
      leaveOnBrokenPipe(process.exitCode ?? 0);
      return;
    }
    throw error;
  });
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`skein: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
