/** The page's routes live in the URL's fragment (`#/`, `#/sessions/<id>`), never in its path. */
import { useEffect, useState } from "react";

/** The current route (the fragment without `#`; `/` when empty). */
function currentRoute(): string {
  const hash = window.location.hash.replace(/^#/, "");
  return hash === "" ? "/" : hash;
}

/** Go to a route. */
export function navigate(route: string): void {
  window.location.hash = route;
}

/** The current route, re-rendering when it changes. */
export function useRoute(): string {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const changed = (): void => setRoute(currentRoute());
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return route;
}
