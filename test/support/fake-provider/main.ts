/**
 * Runs the fake provider as its own process:
 *   npx tsx test/support/fake-provider/main.ts [--port N]
 * prints one JSON line `{"baseUrl": "..."}` once listening, answers every request with a short
 * text unless replies are queued through `POST /_fake/replies`, and stops on SIGTERM/SIGINT.
 *
 * Boundary rule: process wiring only.
 */
import { startFakeProvider } from "./server.js";

const portFlag = process.argv.indexOf("--port");
const port = portFlag >= 0 ? Number(process.argv[portFlag + 1]) : 0;
const fake = await startFakeProvider({ port });
process.stdout.write(`${JSON.stringify({ baseUrl: fake.baseUrl })}\n`);
const stop = () => {
  void fake.close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
