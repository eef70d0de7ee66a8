/**
 * The bounds of an approval policy, the same wherever one is written: in a request
 * (`approval_policy` of a creation, `PUT /sessions/{id}/approval-policy`) and in config.json.
 *
 * Boundary rule: constants only, so config.json's parser (src/home/approval-policy.ts) takes
 * them without loading the wire schemas.
 */

/** Most rules a policy holds, and the longest tool name and argument pattern a rule may name. */
export const approvalPolicyLimits = { rules: 256, tool: 256, pattern: 4096 } as const;
