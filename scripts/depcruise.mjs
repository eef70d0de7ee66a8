// Runs dependency-cruiser's command line (same arguments) with one change: swc parses `.tsx`
// files as TSX. dependency-cruiser hands swc every TypeScript file as plain TypeScript, which
// refuses JSX, so the web UI's components (web/src/**/*.tsx) could not be checked otherwise.
// Its own TypeScript parser is not an option: TypeScript 7 has no JavaScript API.
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const swc = require("@swc/core");
const parseFileSync = swc.parseFileSync;
swc.parseFileSync = (file, options) =>
  parseFileSync(file, file.endsWith(".tsx") ? { ...options, tsx: true } : options);

// The package exports its API (src/main/index.mjs), not its command line: found from there.
await import(new URL("../../bin/dependency-cruise.mjs", import.meta.resolve("dependency-cruiser")).href);
