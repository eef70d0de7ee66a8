/**
 * The page: signed in (a login cookie) or not, then the sessions list or one session. The
 * daemon's capabilities decide which panels exist (approvals only where the daemon has them).
 */
import { useEffect, useState } from "react";
import type { BrowserSession } from "../../src/api/browser-login.js";
import type { ServerInfo } from "../../src/api/server.js";
import { approvalsCapability } from "./approvals/approval-state.js";
import { call, loadBrowserSession, logout } from "./daemon-api.js";
import { DevicesPage } from "./devices/devices-page.js";
import { SessionPage } from "./pages/session-page.js";
import { SessionsPage } from "./pages/sessions-page.js";
import { useRoute } from "./route.js";
import { SchedulesPage } from "./schedules/schedules-page.js";
import { SessionSidebar } from "./sessions/session-sidebar.js";
import { ThemeToggle } from "./theme/theme-toggle.js";

type SignIn =
  | { kind: "checking" }
  | { kind: "signed_out" }
  | { kind: "signed_in"; session: BrowserSession; server: ServerInfo }
  | { kind: "failed"; message: string };

/** The whole page. */
export function App() {
  const [signIn, setSignIn] = useState<SignIn>({ kind: "checking" });
  const route = useRoute();
  useEffect(() => {
    (async () => {
      // Both at once: a signed-out browser gets 401 from each, and only the first is looked at.
      const server = call<ServerInfo>("GET", "/server");
      server.catch(() => undefined);
      const session = await loadBrowserSession();
      if (session === null) return setSignIn({ kind: "signed_out" });
      return setSignIn({ kind: "signed_in", session, server: await server });
    })().catch((error: unknown) => setSignIn({ kind: "failed", message: String(error) }));
  }, []);

  const header = (
    <nav className="top">
      <a href="#/" className="brand">
        Skein
      </a>
      <ThemeToggle />
      {signIn.kind === "signed_in" ? (
        <>
          <span className="version">daemon {signIn.server.version}</span>
          <a href="#/schedules">Schedules</a>
          {signIn.session.role === "admin" ? <a href="#/devices">Devices</a> : null}
          <button
            type="button"
            onClick={() => void logout().then(() => setSignIn({ kind: "signed_out" }))}
            data-testid="logout"
          >
            Sign out
          </button>
        </>
      ) : null}
    </nav>
  );
  switch (signIn.kind) {
    case "checking":
      return header;
    case "failed":
      return (
        <>
          {header}
          <div className="banner failure">{signIn.message}</div>
        </>
      );
    case "signed_out":
      return (
        <>
          {header}
          <SignedOutPage />
        </>
      );
    case "signed_in": {
      const match = /^\/sessions\/([0-9a-f-]{36})$/.exec(route);
      const approvals = (signIn.server.capabilities[approvalsCapability] ?? 0) > 0;
      return (
        <>
          {header}
          {match !== null ? (
            <div className="with-sidebar">
              <SessionSidebar current={match[1]!} />
              <SessionPage key={match[1]} sessionId={match[1]!} approvals={approvals} />
            </div>
          ) : route === "/schedules" ? (
            <SchedulesPage />
          ) : route === "/devices" && signIn.session.role === "admin" ? (
            <DevicesPage />
          ) : (
            <SessionsPage />
          )}
        </>
      );
    }
    default: {
      const unknown: never = signIn;
      return unknown;
    }
  }
}

/** What a browser that is not signed in sees: how to sign in, on this machine or a phone. */
function SignedOutPage() {
  return (
    <main className="signed-out" data-testid="signed-out">
      <h1>Not signed in</h1>
      <p>
        Run <code>skein web</code> in a terminal on this machine: it prints a login link (and opens it on a
        desktop). A link works once, for two minutes.
      </p>
      <p>
        On a phone, open the pairing link (or scan the QR code) that <code>skein web --device NAME</code>{" "}
        prints.
      </p>
    </main>
  );
}
