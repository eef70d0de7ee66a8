/**
 * The login link `skein web` prints and opens: `GET /login?code=…` spends nothing and answers a
 * small page whose form posts the code; `POST /login?code=…` spends it and sets the session
 * cookie. The page submits itself through a same-origin script (`GET /login/submit.js`), so the
 * local user's browser is signed in without a click; a button does it where scripts do not run.
 *
 * Why the page submits itself, when the pairing page (pairing-route.ts) waits for its button:
 * link previewers fetch a link's HTML for its title and run no scripts, so they never post the
 * form; and a login link is the local user's, opened by `skein web` itself, where a pairing link
 * is made to travel to another device. A fetcher that does run scripts and reaches the daemon
 * would spend the code (docs/http-api.md, Browsers, says so).
 *
 * Boundary rule: public, like the pairing link: the code is the credential. Codes and logins are
 * kept by BrowserLogins (src/daemon/http/browser-logins.ts).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { loginPath } from "../../api/browser-login.js";
import type { BrowserLogins } from "../http/browser-logins.js";
import { codeLifetimeMs } from "../http/browser-logins.js";
import type { HttpApp } from "../http/create-http-app.js";
import { pageSecurityHeaders } from "../http/page-headers.js";
import { registerResource } from "../http/resource.js";
import { htmlPage, refuseSpentCode, registerOneTimeLink, signedInRedirect } from "./one-time-link.js";

/** The script that posts the login page's form as soon as the page is parsed. */
const submitScriptPath = `${loginPath}/submit.js`;

// Run while the page is still loading, so the page is replaced in the history: Back does not
// post a spent code again.
const submitScript = `document.getElementById("login").submit();\n`;

const minutes = codeLifetimeMs / 60_000;

const spentDetail =
  `this login link is unknown, used already or older than ${minutes} minutes; ` +
  "run `skein web` for a new one";

/** The page a browser sees for a login link that does not work. */
const spentPage = htmlPage(
  "Login link invalid",
  `<h1>This login link does not work</h1>
<p>It was used already, is unknown, or is older than ${minutes} minutes. A login link signs in one browser, once.</p>
<p>Run <code>skein web</code> on the computer that runs Skein for a new one.</p>`,
);

/** The page a login link opens: a form that posts the code, submitted by its script at once. */
function loginPage(code: string): string {
  return htmlPage(
    "Sign in to Skein",
    `<h1>Sign in to Skein</h1>
<p>This signs this browser in to Skein's web UI, as the token that asked for the link. The link works once.</p>
<form id="login" method="post" action="${loginPath}?code=${code}"><button type="submit">Sign in</button></form>`,
    `<script src="${submitScriptPath}" defer></script>`,
  );
}

/** Register `GET /login` (the page), `POST /login` (spend the code) and the page's script. */
export function registerLoginRoute(app: HttpApp, options: { logins: BrowserLogins; port(): number }): void {
  registerOneTimeLink(app, loginPath, {
    page: {
      summary: "A login link: a page that signs this browser in (by posting the code)",
      description: "a page whose form posts the code, submitted by its script at once (spends nothing)",
      html: loginPage,
    },
    spend: {
      summary: "Spend a login link's code: sign this browser in",
      description:
        "signed in: `Set-Cookie` (HttpOnly, SameSite=Strict, 7 days) and `Location: /`; a used, unknown or expired code is 401 login_code_invalid (an HTML page to a browser)",
      answer: (request, reply, code) => spendLoginCode(request, reply, code, options),
    },
  });

  registerResource(app, submitScriptPath, {
    GET: {
      schema: {
        response: {
          200: {
            description: "the login page's script: it posts the page's form",
            content: { "text/javascript": { schema: Type.String() } },
          },
        },
      },
      config: { public: true, page: true, doc: { summary: "The login page's script (public)" } },
      handler: async (_request, reply) =>
        reply
          .code(200)
          .headers(pageSecurityHeaders)
          .header("content-type", "text/javascript; charset=utf-8")
          .header("cache-control", "no-cache")
          .send(submitScript),
    },
  });
}

/** `POST /login`: spend the code; 303 with the login's cookie, or the spent page / 401. */
async function spendLoginCode(
  request: FastifyRequest,
  reply: FastifyReply,
  code: string,
  options: { logins: BrowserLogins; port(): number },
): Promise<FastifyReply> {
  const login = await options.logins.redeem(code);
  if (login === null) {
    return refuseSpentCode(request, reply, { code: "login_code_invalid", detail: spentDetail, spentPage });
  }
  const maxAgeSeconds = Math.floor((login.expiresAt - Date.now()) / 1000);
  return signedInRedirect(reply, { port: options.port(), value: login.cookieValue, maxAgeSeconds });
}
