/**
 * What a client's request that changes a loaded session does, inside its actor's mailbox: a new
 * provider profile, model or model parameters (`config_changed`), and a manual compaction
 * started. The actor checks the log is intact and the session free before it calls them.
 */
import type { SessionSettings, SessionSettingsBody } from "../../api/session-settings.js";
import type { CompactAnswer } from "../../api/session-snapshot.js";
import type { SessionCompactor } from "../compaction/compaction.js";
import { NothingToCompactError, ProviderMissingError } from "../errors.js";
import type { SessionPort } from "../session/session-port.js";
import type { BoundClient, SessionServices } from "../session/session-services.js";
import { patchSettings, settingsOf } from "../session/session-settings.js";
import type { SessionRow } from "../storage/sessions-table.js";

/**
 * Change the settings of the session whose row is `row` as `patch` says, from its next model
 * request on; refuses a profile that is not configured before anything is written.
 */
export async function changeSettings(
  port: SessionPort,
  describeProvider: SessionServices["describeProvider"],
  row: SessionRow,
  patch: SessionSettingsBody,
): Promise<SessionSettings> {
  const next = patchSettings(
    { providerProfile: row.providerProfile, model: row.model, config: port.log.state.config },
    patch,
  );
  const effective = describeProvider(next.providerProfile, next.model, next.config);
  await port.log.commit(
    [
      {
        kind: "config_changed",
        ts: port.now(),
        config: next.config,
        provider_profile: next.providerProfile,
        model: next.model,
      },
    ],
    { provider: { providerProfile: next.providerProfile, model: next.model } },
  );
  return settingsOf(next, effective);
}

/**
 * Plan a compaction of the session now and start it in the background with the session's
 * client (`done` once it has ended, whatever the outcome). Throws `ProviderMissingError` without
 * a provider, `NothingToCompactError` when nothing would be summarized.
 */
export function startCompaction(
  port: SessionPort,
  bindClient: SessionServices["bindClient"],
  compactor: SessionCompactor,
  row: SessionRow,
  done: () => void,
): CompactAnswer {
  let bound: BoundClient;
  try {
    bound = bindClient(row.providerProfile, row.model, port.log.state.config);
  } catch (error) {
    throw new ProviderMissingError(port.sessionId, error instanceof Error ? error.message : String(error));
  }
  const plan = compactor.plan(bound);
  if (plan === null) {
    throw new NothingToCompactError(port.sessionId, compactor.account.size(port.log.state).tokens);
  }
  const started = compactor.startManual(bound, plan, done);
  return {
    session_id: port.sessionId,
    state: "started",
    before_tokens: started.beforeTokens,
    kept_tokens: started.keptTokens,
    first_kept_position: started.firstKeptPosition,
  };
}
