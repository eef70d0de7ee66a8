/**
 * `POST /providers/{name}/test`: one tiny request to a configured provider profile, sent from
 * the daemon, so the answer tells whether the daemon itself (its environment, where
 * `apiKeyEnv` variables are read, its home's secrets file, and its network) can use the profile;
 * it also says where the daemon looked for the key.
 *
 * Boundary rule: validation and translation only; the probe is the provider layer's
 * (src/providers/profile-probe.ts). The provider's failures are a 200 answer saying what went
 * wrong; an unknown profile is a 404.
 */
import { Type } from "typebox";
import type { ProviderTestAnswer, ProviderTestBody } from "../../api/provider-test.js";
import { ProviderTestAnswerSchema, ProviderTestBodySchema } from "../../api/schemas/provider-test.js";
import { effectiveBaseUrl } from "../../providers/provider-profile.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { NoProviderError } from "../process/provider-config.js";
import { answerWith } from "./daemon-problem.js";
import type { RouteServices } from "./route-services.js";

/** How long a test waits for the provider when the body names no timeout. */
const defaultProviderTestTimeoutMs = 30_000;

/** Register `POST /providers/{name}/test`. */
export function registerProviderRoutes(app: HttpApp, services: RouteServices): void {
  registerResource(app, "/providers/:name/test", {
    POST: {
      schema: {
        params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) }),
        body: ProviderTestBodySchema,
        response: { 200: ProviderTestAnswerSchema },
      },
      config: {
        role: "admin",
        startsWork: true,
        doc: {
          summary: "Send one tiny request to a provider profile, from the daemon",
          description:
            "A provider's failure is a 200 answer saying what went wrong; an unknown profile is a 404.",
        },
      },
      handler: async (request) => {
        const { name } = request.params as { name: string };
        const body = request.body as ProviderTestBody;
        return answerWith(async (): Promise<ProviderTestAnswer> => {
          let named: ReturnType<RouteServices["resolveProfile"]>;
          try {
            named = services.resolveProfile(name);
          } catch (error) {
            if (error instanceof NoProviderError) throw problem("resource_not_found", error.message);
            throw error;
          }
          const { profile } = named;
          const started = services.now();
          const key = services.lookUpApiKey(named.name, profile);
          const outcome = await services.probeProvider(
            named.name,
            profile,
            body.timeout_ms ?? defaultProviderTestTimeoutMs,
          );
          return {
            profile: named.name,
            protocol: profile.protocol,
            model: profile.model,
            base_url: effectiveBaseUrl(profile),
            api_key_env: profile.apiKeyEnv ?? null,
            api_key: { source: key.source, looked: key.looked },
            elapsed_ms: services.now() - started,
            result: outcome.ok
              ? {
                  ok: true,
                  text: outcome.text.slice(0, 200),
                  usage:
                    outcome.inputTokens === null || outcome.outputTokens === null
                      ? null
                      : { input_tokens: outcome.inputTokens, output_tokens: outcome.outputTokens },
                }
              : { ok: false, kind: outcome.kind, status: outcome.status, message: outcome.message },
          };
        });
      },
    },
  });
}
