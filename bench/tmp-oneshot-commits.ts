import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { text } from "../test/support/fake-provider/reply.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { runOneShot } from "./daemon-oneshot.js";
import { commitStatsOf, daemonEnv, profiles } from "./daemon-support.js";

const provider = await FakeProvider.start();
provider.script = () => text(["Hello", " there."]);
async function statsOf(n: number) {
  const app = await DaemonHarness.start({
    providers: profiles(provider),
    env: daemonEnv({ SKEIN_LOG_LEVEL: "info", SKEIN_TEST_COUNT_STATEMENTS: "1" }),
    ...(process.env.SKEIN_PROFILE_BIN === undefined ? {} : { skeinBin: process.env.SKEIN_PROFILE_BIN }),
  });
  try {
    for (let i = 0; i < n; i++) await runOneShot(app);
    await app.shutdown();
    return commitStatsOf(app.readLog());
  } finally {
    await app.close();
  }
}
const zero = await statsOf(0);
const ten = await statsOf(10);
const per = (k: "transactions" | "requests" | "fsyncs" | "statements") =>
  ((Number(ten[k]) - Number(zero[k])) / 10).toFixed(2);
console.log(`per one-shot: transactions ${per("transactions")}, writes ${per("requests")}, fsyncs ${per("fsyncs")}, statements ${per("statements")}`);
await provider.close();
