/** The header's light/dark switch (remembered in this browser). */
import { useTheme } from "./theme.js";

/** A button that switches to the other theme. */
export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  const other = theme === "dark" ? "light" : "dark";
  return (
    <button
      type="button"
      className="theme-toggle"
      data-testid="theme-toggle"
      aria-label={`Switch to ${other} mode`}
      title={`Switch to ${other} mode`}
      onClick={toggle}
    >
      {theme === "dark" ? "☀ light" : "☾ dark"}
    </button>
  );
}
