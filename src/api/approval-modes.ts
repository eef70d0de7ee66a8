/**
 * The approval modes a session can be in, in one ordered list: the HTTP schema, `skein chat`
 * (Shift-Tab cycles them in this order) and the web UI's selector all take it from here.
 *
 * Boundary rule: constants only, so the CLI and the browser take them without the schemas.
 */
import type { ApprovalMode } from "../model/approval-policy.js";

/** The approval modes, from the most to the least cautious. */
export const approvalModes = [
  "read-only",
  "ask",
  "auto-edit",
  "full-auto",
] as const satisfies readonly ApprovalMode[];

/** The mode after `mode` in the cycle (after the last comes the first). */
export function nextApprovalMode(mode: ApprovalMode): ApprovalMode {
  return approvalModes[(approvalModes.indexOf(mode) + 1) % approvalModes.length]!;
}
