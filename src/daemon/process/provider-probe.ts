/**
 * `skein config test` on the daemon's side: the key lookup it reports and the probe it sends,
 * both with the keys the daemon's turns would use.
 *
 * Boundary rule: wiring only; the probe is the provider layer's (src/providers/profile-probe.ts),
 * the lookup api-key-lookup.ts's.
 */
import { LlmClientError } from "../../model/llm-client.js";
import { probeProfile } from "../../providers/profile-probe.js";
import type { RouteServices } from "../routes/route-services.js";
import type { ApiKeys } from "./api-key-lookup.js";

/** The route services that test a profile with the keys in `keys`. */
export function providerProbe(keys: ApiKeys): Pick<RouteServices, "lookUpApiKey" | "probeProvider"> {
  return {
    lookUpApiKey: (name, profile) => {
      const { source, looked } = keys.lookUp(name, profile);
      return { source, looked };
    },
    probeProvider: async (name, profile, timeoutMs) => {
      try {
        return await probeProfile(keys.withKey(name, profile), { timeoutMs });
      } catch (error) {
        // No key where one is needed: the answer says so, like any other failed probe.
        if (!(error instanceof LlmClientError)) throw error;
        return { ok: false, kind: error.kind, status: null, message: error.message };
      }
    },
  };
}
