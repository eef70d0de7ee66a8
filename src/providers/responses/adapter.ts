/** The OpenAI Responses protocol: `POST {base}/responses` with Bearer auth. */
import { bearerAuth, dropField, type WireBody, type WireProtocol } from "../wire-protocol.js";
import { ResponsesParser } from "./parser.js";
import { type ResponsesRequestOptions, responsesRequestBody } from "./request.js";
import { responsesWholeResponse } from "./whole-response.js";

/** The answer of a model that cannot return encrypted reasoning to `include` (no `param` in some). */
const encryptedRefusal = /encrypted content is not supported/i;

/** Leaves `reasoning.summary` out: organisations that are not verified get 400 for it. */
function dropSummary(body: WireBody): void {
  const reasoning = body.reasoning;
  if (typeof reasoning === "object" && reasoning !== null) delete (reasoning as WireBody).summary;
}

export const responsesProtocol: WireProtocol<ResponsesRequestOptions> = {
  protocol: "responses",
  endpoint: () => ({ version: "v1", path: "/responses" }),
  authHeaders: bearerAuth,
  options: ({ profile }) => ({ store: profile.store ?? false }),
  body: responsesRequestBody,
  // OpenAI names an input item in `param` ("input[5]", "input[5].content").
  history: { array: "input", trusts: ["param"], blocks: false },
  parser: (provider) => new ResponsesParser(provider),
  wholeResponse: responsesWholeResponse,
  optionalFields: {
    // A model the table took for a reasoning one refuses encrypted reasoning.
    include: dropField("include"),
    // "Your organization must be verified to generate reasoning summaries." (param reasoning.summary)
    "reasoning.summary": dropSummary,
    temperature: dropField("temperature"),
    top_p: dropField("top_p"),
    parallel_tool_calls: dropField("parallel_tool_calls"),
  },
  fieldsOfMessage: (message) => (encryptedRefusal.test(message) ? ["include"] : []),
};
