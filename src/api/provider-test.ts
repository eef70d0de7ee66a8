/**
 * `POST /providers/{name}/test`: one tiny request to a configured provider, sent by the daemon
 * with its own environment (where `apiKeyEnv` variables are read), and what came of it.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/provider-test.ts).
 */
export type { ProviderTestAnswer, ProviderTestBody, ProviderTestResult } from "./schemas/provider-test.js";
