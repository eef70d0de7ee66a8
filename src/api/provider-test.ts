/**
 * `POST /providers/{name}/test`: one tiny request to a configured provider, sent by the daemon
 * with its own environment (where `apiKeyEnv` variables are read), and what came of it.
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

/** Body of `POST /providers/{name}/test` (`{}` takes the defaults). */
export interface ProviderTestBody {
  /** Give up after this long (1..300000 ms, default 30000). */
  timeout_ms?: number;
}

/** What came of the request: the provider's answer, or why there was none. */
export type ProviderTestResult =
  | {
      ok: true;
      /** The answer's text, trimmed, at most 200 characters. */
      text: string;
      usage: null | { input_tokens: number; output_tokens: number };
    }
  | {
      ok: false;
      /**
       * `http`, `api`, `network`, `protocol`, `timeout` (no answer in time) or `config` (e.g. the
       * key variable is not set in the daemon's environment).
       */
      kind: string;
      /** The provider's HTTP status, when it answered with one. */
      status: number | null;
      message: string;
    };

/** The 200 answer: the test ran, whether the provider answered or not. */
export interface ProviderTestAnswer {
  profile: string;
  protocol: string;
  model: string;
  base_url: string;
  /** The variable the daemon read the API key from, when the profile names one. */
  api_key_env: string | null;
  /** How long the request took, in ms. */
  elapsed_ms: number;
  result: ProviderTestResult;
}
