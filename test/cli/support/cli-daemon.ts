/**
 * The fake provider, daemon and CLI sandbox a `describe` of CLI tests shares.
 */
import { DaemonHarness } from "../../e2e/support/daemon-harness.js";
import { FakeProvider } from "../../support/fake-provider/server.js";
import { startedForDescribe } from "../../support/started-for-describe.js";
import { CliSandbox, fakeProfile } from "./cli-harness.js";

/** A fake provider, a daemon on it and a CLI sandbox pointed at that daemon (autostart off). */
export interface CliDaemonScope {
  readonly provider: FakeProvider;
  readonly daemon: DaemonHarness;
  readonly cli: CliSandbox;
}

/**
 * Starts a fake provider (answering with `script` when given) and a daemon on it (with the
 * config.json fields `config` when given) before the
 * enclosing `describe`'s tests and closes both after them; read the fields inside tests and hooks.
 */
export function useCliDaemon(
  script?: FakeProvider["script"],
  config?: Record<string, unknown>,
): CliDaemonScope {
  return startedForDescribe(
    async () => {
      const provider = await FakeProvider.start();
      if (script !== undefined) provider.script = script;
      const daemon = await DaemonHarness.start({
        providers: { fake: fakeProfile(provider.baseUrl) as never },
        ...(config === undefined ? {} : { config }),
      }).catch(async (error: unknown) => {
        await provider.close();
        throw error;
      });
      const cli = new CliSandbox({ root: daemon.root, home: daemon.home, env: { SKEIN_NO_AUTOSTART: "1" } });
      return { provider, daemon, cli };
    },
    async ({ provider, daemon }) => {
      await daemon.close();
      await provider.close();
    },
  );
}
