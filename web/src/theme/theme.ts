/**
 * Light or dark: the choice saved in localStorage, else the system's (`prefers-color-scheme`,
 * followed as it changes). Applied as `data-theme` on the root element; styles.css holds the
 * palettes (an attribute, not inline styles, which the page's Content-Security-Policy refuses).
 */
import { useCallback, useEffect, useState } from "react";

export type Theme = "light" | "dark";

const storageKey = "skein.theme";
const darkQuery = "(prefers-color-scheme: dark)";

function savedTheme(): Theme | null {
  try {
    const saved = window.localStorage.getItem(storageKey);
    return saved === "light" || saved === "dark" ? saved : null;
  } catch {
    // Storage may be off (a private window's policy): the system's choice then.
    return null;
  }
}

function systemTheme(): Theme {
  return window.matchMedia(darkQuery).matches ? "dark" : "light";
}

/** The theme in force, and a toggle that saves the other one. */
export function useTheme(): { theme: Theme; toggle(): void } {
  const [theme, setTheme] = useState<Theme>(() => savedTheme() ?? systemTheme());
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  useEffect(() => {
    const query = window.matchMedia(darkQuery);
    const follow = (): void => {
      if (savedTheme() === null) setTheme(systemTheme());
    };
    query.addEventListener("change", follow);
    return () => query.removeEventListener("change", follow);
  }, []);
  const toggle = useCallback(() => {
    setTheme((current) => {
      const next: Theme = current === "dark" ? "light" : "dark";
      try {
        window.localStorage.setItem(storageKey, next);
      } catch {
        // Not saved: it lasts for this page.
      }
      return next;
    });
  }, []);
  return { theme, toggle };
}
