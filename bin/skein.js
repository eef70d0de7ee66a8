#!/usr/bin/env node
// The `skein` command. The TypeScript sources are compiled to dist/ by `npm ci` (the package's
// `prepare` script runs `npm run build`).
import { main } from "../dist/cli/main.js";

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`skein: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
