/**
 * `GET /pair?code=…` shows a phone's browser a page with one button; its post (`POST
 * /pair?code=…`) spends the device's one-time pairing code and signs the browser in as the device
 * (its own cookie, kept in the database by digest, so every node knows it). A code that is
 * unknown, spent or expired answers a short page that says so (or, to a client that does not ask
 * for HTML, 401 pairing_code_invalid).
 *
 * Why a button: a GET must change nothing (one-time-link.ts). Unlike the login page
 * (login-route.ts), this page does not submit itself: a pairing link is made to travel to another
 * device, through chats and mail whose scanners may run scripts; a person presses the button.
 *
 * Boundary rule: public, like the login link: the code is the credential. Only the digests of the
 * code and of the cookie are ever stored.
 */
import { randomBytes } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { deviceLoginLifetimeMs, pairingLifetimeMs, pairPath } from "../../api/devices.js";
import type { HttpApp } from "../http/create-http-app.js";
import { secretDigest } from "../http/token-secret.js";
import type { DeviceStore } from "../storage/device-store.js";
import { answerWith } from "./daemon-problem.js";
import { htmlPage, refuseSpentCode, registerOneTimeLink, signedInRedirect } from "./one-time-link.js";

const spentDetail =
  `this pairing link is unknown, used already or older than ${pairingLifetimeMs / 60_000} minutes; ` +
  "ask for a new one (skein web --device NAME, after skein devices revoke NAME)";

/** The page a browser sees for a pairing link that does not work (no style, no script). */
const spentPage = htmlPage(
  "Pairing link invalid",
  `<h1>This pairing link does not work</h1>
<p>It was used already, is unknown, or is older than ${pairingLifetimeMs / 60_000} minutes. A pairing link signs in one browser, once.</p>
<p>Ask for a new one on the computer that runs Skein: <code>skein devices revoke NAME</code>, then <code>skein web --device NAME</code>.</p>`,
);

/** The page a pairing link opens: one button that posts the code (no style, no script). */
function confirmPage(code: string): string {
  return htmlPage(
    "Pair this browser with Skein",
    `<h1>Pair this browser with Skein</h1>
<p>This signs this browser in as the device the link was made for. The link works once.</p>
<form method="post" action="${pairPath}?code=${code}"><button type="submit">Pair this browser</button></form>`,
  );
}

type PairingOptions = { devices: DeviceStore; now(): number; port(): number };

/** Register `GET /pair` (the page) and `POST /pair` (spend the code). */
export function registerPairingRoute(app: HttpApp, options: PairingOptions): void {
  registerOneTimeLink(app, pairPath, {
    page: {
      summary: "A device's pairing link: a page whose button pairs this browser",
      description: "a page with one button that posts the code (spends nothing)",
      html: confirmPage,
    },
    spend: {
      summary: "Spend a device's pairing code: sign this browser in as the device",
      description:
        "paired: `Set-Cookie` (HttpOnly, SameSite=Strict, 90 days) and `Location: /`; a used, unknown or expired code is 401 pairing_code_invalid (an HTML page to a browser)",
      answer: (request, reply, code) => spendPairingCode(request, reply, code, options),
    },
  });
}

/** `POST /pair`: spend the code; 303 with the device's cookie, or the spent page / 401. */
async function spendPairingCode(
  request: FastifyRequest,
  reply: FastifyReply,
  code: string,
  options: PairingOptions,
): Promise<FastifyReply> {
  const cookieValue = randomBytes(32).toString("base64url");
  const now = options.now();
  const device = await answerWith(() =>
    options.devices.pair(secretDigest(code), secretDigest(cookieValue), now),
  );
  if (device === null) {
    return refuseSpentCode(request, reply, { code: "pairing_code_invalid", detail: spentDetail, spentPage });
  }
  const maxAgeSeconds = Math.floor(deviceLoginLifetimeMs / 1000);
  return signedInRedirect(reply, { port: options.port(), value: cookieValue, maxAgeSeconds });
}
