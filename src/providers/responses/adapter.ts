/** The OpenAI Responses protocol: `POST {base}/responses` with Bearer auth. */
import { bearerAuth, type WireProtocol } from "../wire-protocol.js";
import { ResponsesParser } from "./parser.js";
import { type ResponsesRequestOptions, responsesRequestBody } from "./request.js";

/** The answer of a model that cannot return encrypted reasoning to `include`. */
const encryptedRefusal = /encrypted content is not supported/i;

export const responsesProtocol: WireProtocol<ResponsesRequestOptions> = {
  protocol: "responses",
  endpoint: () => ({ version: "v1", path: "/responses" }),
  authHeaders: bearerAuth,
  options: ({ profile }) => ({ store: profile.store ?? false, encryptedReasoningRefused: false }),
  body: responsesRequestBody,
  parser: (provider) => new ResponsesParser(provider),
  adjustAfter(error, options) {
    // A model the table took for a reasoning one refuses encrypted reasoning: stop asking.
    if (options.encryptedReasoningRefused || error.kind !== "http" || error.status !== 400) return false;
    if (!encryptedRefusal.test(error.message)) return false;
    options.encryptedReasoningRefused = true;
    return true;
  },
};
