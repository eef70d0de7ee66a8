/**
 * The prompt's key bindings: which command each key stands for (Emacs-style control keys,
 * Alt for words, the arrows, Enter and its newline variants).
 *
 * Boundary rule: a pure mapping from a key to a command; carrying the command out (history,
 * events, the screen) is the editor's.
 */
import {
  deleteBack,
  deleteForward,
  deleteWordBack,
  type EditBuffer,
  insert,
  killToLineEnd,
  killToLineStart,
  moveChar,
  moveLineEdge,
  moveWord,
} from "./edit-buffer.js";
import { isPrintable, type Key } from "./keypress.js";

/** What a key asks the editor to do. */
export type EditorCommand =
  /** Change the text or move the cursor. */
  | { kind: "edit"; edit: (buffer: EditBuffer) => EditBuffer }
  /** Ctrl-C: clear the prompt or interrupt, depending on the prompt and the mount. */
  | { kind: "interrupt" }
  /** Ctrl-D: end of input on an empty prompt, else delete under the cursor. */
  | { kind: "eof" }
  /** Ctrl-L. */
  | { kind: "clear-screen" }
  /** Ctrl-R. */
  | { kind: "search" }
  /** Up/Down (Ctrl-P/Ctrl-N): the line above or below, then the history. */
  | { kind: "line"; direction: -1 | 1 }
  /** Tab. */
  | { kind: "complete" }
  /** Shift-Tab: the chat's next approval mode. */
  | { kind: "cycle-mode" }
  /** Enter: send the prompt (or a newline after a `\`). */
  | { kind: "enter" }
  /** A key that changes nothing but is taken (Esc): the prompt is drawn again. */
  | { kind: "redraw" };

const newline = (buffer: EditBuffer): EditBuffer => insert(buffer, "\n");

/** The command `text`/`key` stands for, or null for a key that does nothing. */
export function commandFor(text: string | undefined, key: Key): EditorCommand | null {
  if (key.ctrl === true && !key.meta) return controlCommand(key.name);
  switch (key.name) {
    case "return":
      return key.meta === true ? edit(newline) : { kind: "enter" };
    case "enter":
      // Ctrl-J.
      return edit(newline);
    case "backspace":
      return edit(key.meta === true ? deleteWordBack : deleteBack);
    case "delete":
      return edit(deleteForward);
    case "left":
      return edit(key.meta === true ? (buffer) => moveWord(buffer, -1) : (buffer) => moveChar(buffer, -1));
    case "right":
      return edit(key.meta === true ? (buffer) => moveWord(buffer, 1) : (buffer) => moveChar(buffer, 1));
    case "home":
      return edit((buffer) => moveLineEdge(buffer, "start"));
    case "end":
      return edit((buffer) => moveLineEdge(buffer, "end"));
    case "up":
      return { kind: "line", direction: -1 };
    case "down":
      return { kind: "line", direction: 1 };
    case "tab":
      return key.shift === true ? { kind: "cycle-mode" } : { kind: "complete" };
    case "escape":
      return { kind: "redraw" };
    case "b":
    case "f":
      if (key.meta === true) {
        const direction = key.name === "b" ? -1 : 1;
        return edit((buffer) => moveWord(buffer, direction));
      }
      break;
    default:
      break;
  }
  // Shift-Enter as terminals with the CSI-u protocol report it.
  if (key.code === "[13;2u") return edit(newline);
  if (text !== undefined && key.meta !== true && isPrintable(text)) {
    return edit((buffer) => insert(buffer, text));
  }
  return null;
}

/** Ctrl and a key (without Alt). */
function controlCommand(name: string | undefined): EditorCommand | null {
  switch (name) {
    case "c":
      return { kind: "interrupt" };
    case "d":
      return { kind: "eof" };
    case "a":
      return edit((buffer) => moveLineEdge(buffer, "start"));
    case "e":
      return edit((buffer) => moveLineEdge(buffer, "end"));
    case "b":
      return edit((buffer) => moveChar(buffer, -1));
    case "f":
      return edit((buffer) => moveChar(buffer, 1));
    case "u":
      return edit(killToLineStart);
    case "k":
      return edit(killToLineEnd);
    case "w":
    case "backspace":
      return edit(deleteWordBack);
    case "h":
      return edit(deleteBack);
    case "left":
      return edit((buffer) => moveWord(buffer, -1));
    case "right":
      return edit((buffer) => moveWord(buffer, 1));
    case "l":
      return { kind: "clear-screen" };
    case "r":
      return { kind: "search" };
    case "p":
      return { kind: "line", direction: -1 };
    case "n":
      return { kind: "line", direction: 1 };
    default:
      return null;
  }
}

function edit(change: (buffer: EditBuffer) => EditBuffer): EditorCommand {
  return { kind: "edit", edit: change };
}
