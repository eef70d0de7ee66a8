/**
 * Which protocol features the home's daemon announces, read from its daemon.json (no request):
 * a daemon started before an upgrade may still be running and not take a newer field.
 *
 * Boundary rule: reading daemon.json only; what a command does without a feature is its own.
 */
import { type Capability, capabilities } from "../api/protocol.js";
import { readDiscoveryFile } from "../home/discovery-file.js";

/**
 * Whether the daemon of `home` announces `feature` at this client's version. True when there is
 * no file to ask (a fixed endpoint, or no daemon yet: one started now is of this version, and a
 * file that cannot be read fails the request itself); false for the file of a daemon from
 * before the feature.
 */
export function daemonAnnounces(home: string | null, feature: Capability): boolean {
  if (home === null) return true;
  let info: ReturnType<typeof readDiscoveryFile>;
  try {
    info = readDiscoveryFile(home);
  } catch {
    return true;
  }
  if (info === null) return true;
  return (info.capabilities?.[feature] ?? 0) >= capabilities[feature];
}
