/**
 * `$SKEIN_HOME/web-logins.json`: the browser logins (digests of their cookie values and their
 * times), so a page that signed in keeps working across daemon restarts.
 *
 * Boundary rule: this file owns the file's format; what a login is and when it is valid is
 * src/daemon/http/browser-logins.ts. A missing or unreadable file means no logins (everyone
 * signs in again), never a failed start.
 */
import { readFileSync } from "node:fs";
import { writeFileAtomic } from "../../home/atomic-file.js";
import { homePaths } from "../../home/home.js";
import type { LoginStore, StoredLogin } from "../http/browser-logins.js";

interface LoginFile {
  version: 1;
  logins: StoredLogin[];
}

/** The home's login file as a LoginStore. */
export function loginFile(home: string): LoginStore {
  const path = homePaths(home).logins;
  return {
    load: () => {
      try {
        const parsed = JSON.parse(readFileSync(path, "utf8")) as Partial<LoginFile>;
        if (parsed.version !== 1 || !Array.isArray(parsed.logins)) return [];
        return parsed.logins.filter(isStoredLogin);
      } catch {
        return [];
      }
    },
    save: async (logins) => {
      const file: LoginFile = { version: 1, logins: [...logins] };
      await writeFileAtomic(path, `${JSON.stringify(file)}\n`, 0o600);
    },
  };
}

function isStoredLogin(value: unknown): value is StoredLogin {
  if (typeof value !== "object" || value === null) return false;
  const login = value as Record<string, unknown>;
  return (
    typeof login.hash === "string" &&
    /^[0-9a-f]{64}$/.test(login.hash) &&
    typeof login.created_at === "string" &&
    typeof login.expires_at === "string" &&
    !Number.isNaN(Date.parse(login.expires_at)) &&
    (login.token === undefined || typeof login.token === "string")
  );
}
