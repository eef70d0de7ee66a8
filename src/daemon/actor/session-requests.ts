/**
 * What a client's request that changes a loaded session does, inside its actor's mailbox: its
 * own approval policy, a new provider profile, model or model parameters (`config_changed`), a
 * manual compaction started, entries left out of later requests (a context repair), its own budget. The actor checks the log is intact and the session free before it calls them. And
 * the one repair a session gets as it loads: a missing preview.
 */
import type { ApprovalPolicyAnswer, ApprovalPolicyBody } from "../../api/approvals.js";
import type { SessionSettings, SessionSettingsBody } from "../../api/session-settings.js";
import type { CompactAnswer } from "../../api/session-snapshot.js";
import type { RestoredLog } from "../../log/tail-restore.js";
import type { Budget } from "../../model/budget.js";
import { checkTurnBudget, type TurnBudgetSource } from "../budget/turn-budget-check.js";
import type { SessionCompactor } from "../compaction/compaction.js";
import { CompactionOverBudgetError, NothingToCompactError, ProviderMissingError } from "../errors.js";
import { previewOf } from "../history/preview.js";
import { projectsToHistory } from "../history/project-history.js";
import { type RepairAnswer, repairEntry } from "../session/context-repair.js";
import type { SessionPort } from "../session/session-port.js";
import type { BoundClient, SessionServices } from "../session/session-services.js";
import { patchSettings, settingsOf } from "../session/session-settings.js";
import type { SessionRow } from "../storage/sessions-table.js";

/**
 * Set (or clear, with null) the session's own approval policy, its approval mode, or both, as one
 * log entry (which always carries the policy in force after it); the log checked intact first.
 */
export async function setApprovalPolicy(
  port: SessionPort,
  body: ApprovalPolicyBody,
): Promise<ApprovalPolicyAnswer> {
  await port.log.checkIntact();
  const policy = body.approval_policy === undefined ? port.log.state.approval_policy : body.approval_policy;
  await port.log.commit([
    {
      kind: "approval_policy_changed",
      ts: port.now(),
      policy,
      ...(body.mode === undefined ? {} : { mode: body.mode }),
    },
  ]);
  return { approval_policy: port.log.state.approval_policy, approval_mode: port.log.state.approval_mode };
}

/** Set (or clear: null) the session's own budget, as a `budget_changed` entry (the log checked intact first). */
export async function setBudget(port: SessionPort, budget: Budget | null): Promise<void> {
  await port.log.checkIntact();
  await port.log.commit([{ kind: "budget_changed", ts: port.now(), budget }]);
}

/** Leave the items of entries `from`..`to` out of every later request (see context-repair.ts). */
export async function repairContext(
  port: SessionPort,
  from: number,
  to: number | undefined,
): Promise<RepairAnswer> {
  const { entry, answer } = repairEntry(port.sessionId, port.log.state, from, to, port.now());
  await port.log.commit([entry]);
  return answer;
}

/**
 * Change the settings of the session (its log checked intact, then its row read) as `patch`
 * says, from its next model request on; refuses a profile that is not configured before anything
 * is written.
 */
export async function changeSettings(
  port: SessionPort,
  describeProvider: SessionServices["describeProvider"],
  readRow: () => Promise<SessionRow>,
  patch: SessionSettingsBody,
): Promise<SessionSettings> {
  await port.log.checkIntact();
  const row = await readRow();
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
 * a provider, `NothingToCompactError` when nothing would be summarized, and
 * `CompactionOverBudgetError` when `budgets` refuse a model request now.
 */
export async function startCompaction(
  port: SessionPort,
  bindClient: SessionServices["bindClient"],
  compactor: SessionCompactor,
  row: SessionRow,
  budgets: TurnBudgetSource,
  done: () => void,
): Promise<CompactAnswer> {
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
  // The summary requests are model requests: checked against the session's budgets like a turn's.
  const refusal = await checkTurnBudget(budgets, bound.profileName);
  if (refusal !== null) throw new CompactionOverBudgetError(port.sessionId, refusal.message);
  const started = compactor.startManual(bound, plan, done);
  return {
    session_id: port.sessionId,
    state: "started",
    before_tokens: started.beforeTokens,
    kept_tokens: started.keptTokens,
    first_kept_position: started.firstKeptPosition,
  };
}

/**
 * Forks made before the daemon stored a fork's preview at creation show none although their
 * log has history: compute it from the log once and store it.
 */
export async function repairPreview(
  services: SessionServices,
  row: SessionRow,
  restored: RestoredLog,
): Promise<SessionRow> {
  // A log restored from a state checkpoint was written by a daemon that stores previews.
  const entries = restored.entries;
  if (
    restored.checkpoint !== null ||
    row.preview.transcript_count > 0 ||
    !entries.some(({ entry }) => projectsToHistory(entry))
  )
    return row;
  const preview = previewOf(entries);
  await services.storage.setPreview(row.id, preview);
  return { ...row, preview };
}

/**
 * The row's own budget as the restored log says it: a row written before the column existed
 * (or whose write was lost with a crash between the two) is brought in line once, at load, so
 * its task children's budget checks see it (budget-check.ts).
 */
export async function repairOwnBudget(
  services: SessionServices,
  row: SessionRow,
  restored: RestoredLog,
): Promise<SessionRow> {
  const logged = restored.state.budget;
  if (sameBudget(row.ownBudget, logged)) return row;
  await services.storage.writeRows(row.id, { ownBudget: logged });
  return { ...row, ownBudget: logged };
}

/** Every field of a `Budget`: a field added to the type fails to compile here until it is listed. */
const budgetFields = Object.keys({
  maxTokens: true,
  maxCostUsd: true,
  period: true,
} satisfies Record<keyof Budget, true>) as (keyof Budget)[];

function sameBudget(a: Budget | null, b: Budget | null): boolean {
  if (a === null || b === null) return a === b;
  return budgetFields.every((field) => a[field] === b[field]);
}
