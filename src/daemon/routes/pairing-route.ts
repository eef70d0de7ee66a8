/**
 * `GET /pair?code=…`: a phone's browser spends a device's one-time pairing code and is signed in
 * as the device (its own cookie, kept in the database by digest, so every node knows it). A code
 * that is unknown, spent or expired answers a short page that says so (or, to a client that does
 * not ask for HTML, 401 pairing_code_invalid).
 *
 * Boundary rule: public, like the login link: the code is the credential. Only the digests of the
 * code and of the cookie are ever stored.
 */
import { randomBytes } from "node:crypto";
import { Type } from "typebox";
import { sessionCookieName } from "../../api/browser-login.js";
import { deviceLoginLifetimeMs, pairingLifetimeMs, pairPath } from "../../api/devices.js";
import type { HttpApp } from "../http/create-http-app.js";
import { pageSecurityHeaders } from "../http/page-headers.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { secretDigest } from "../http/token-secret.js";
import type { DeviceStore } from "../storage/device-store.js";
import { answerWith } from "./daemon-problem.js";

const PairQuery = Type.Object(
  { code: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

const spentDetail =
  `this pairing link is unknown, used already or older than ${pairingLifetimeMs / 60_000} minutes; ` +
  "ask for a new one (skein web --device NAME, after skein devices revoke NAME)";

/** The page a browser sees for a pairing link that does not work (no style, no script). */
const spentPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Pairing link invalid</title></head>
<body><h1>This pairing link does not work</h1>
<p>It was used already, is unknown, or is older than ${pairingLifetimeMs / 60_000} minutes. A pairing link signs in one browser, once.</p>
<p>Ask for a new one on the computer that runs Skein: <code>skein devices revoke NAME</code>, then <code>skein web --device NAME</code>.</p>
</body></html>
`;

/** Register `GET /pair`. */
export function registerPairingRoute(
  app: HttpApp,
  options: { devices: DeviceStore; now(): number; port(): number },
): void {
  registerResource(app, pairPath, {
    GET: {
      schema: {
        querystring: PairQuery,
        response: {
          303: Type.Null({
            description:
              "paired: `Set-Cookie` (HttpOnly, SameSite=Strict, 90 days) and `Location: /`; a used, unknown or expired code is 401 pairing_code_invalid (an HTML page to a browser)",
          }),
        },
      },
      config: {
        public: true,
        page: true,
        doc: { summary: "Spend a device's pairing link: sign this browser in as the device" },
      },
      handler: async (request, reply) => {
        const { code } = request.query as { code: string };
        const cookieValue = randomBytes(32).toString("base64url");
        const now = options.now();
        const device = await answerWith(() =>
          options.devices.pair(secretDigest(code), secretDigest(cookieValue), now),
        );
        if (device === null) {
          if (!(request.headers.accept ?? "").includes("text/html"))
            throw problem("pairing_code_invalid", spentDetail);
          return reply
            .code(401)
            .headers(pageSecurityHeaders)
            .header("content-type", "text/html; charset=utf-8")
            .header("cache-control", "no-store")
            .send(spentPage);
        }
        const maxAge = Math.floor(deviceLoginLifetimeMs / 1000);
        return reply
          .code(303)
          .headers(pageSecurityHeaders)
          .header("cache-control", "no-store")
          .header(
            "set-cookie",
            `${sessionCookieName(options.port())}=${cookieValue}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Strict`,
          )
          .header("location", "/")
          .send();
      },
    },
  });
}
