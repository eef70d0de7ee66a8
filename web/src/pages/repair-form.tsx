/**
 * The way out of a turn a provider refused (error `provider_refused`): pick the entries the
 * model should no longer be sent — from and through, each a history entry shown by position,
 * kind and the start of its text — and leave them out (`POST /sessions/{id}/repair`). It starts
 * at the newest message of yours, what a content filter most often refuses.
 */
import { useState } from "react";
import type { HistoryEntry } from "../../../src/api/history.js";

export interface RepairFormProps {
  entries: readonly HistoryEntry[];
  onRepair(from: number, to: number): Promise<void>;
}

/** An entry that an exclusion can name: one holding items the model is sent. */
interface Choice {
  position: number;
  label: string;
}

/** The positions a repair may name, oldest first, each once, labelled by its first entry. */
function choicesOf(entries: readonly HistoryEntry[]): Choice[] {
  const choices: Choice[] = [];
  for (const entry of entries) {
    if (entry.position < 1) continue;
    if (entry.kind === "continuation" || entry.kind === "compaction" || entry.kind === "context_excluded")
      continue;
    if (choices.at(-1)?.position === entry.position) continue;
    choices.push({
      position: entry.position,
      label: `#${entry.position} ${kindLabel(entry)}: ${preview(entry)}`,
    });
  }
  return choices;
}

function kindLabel(entry: HistoryEntry): string {
  switch (entry.kind) {
    case "user":
      return "you";
    case "assistant":
      return "agent";
    case "tool_call":
    case "tool_result":
      return `${entry.kind === "tool_call" ? "call" : "result"} ${entry.tool?.name ?? ""}`.trim();
    default:
      return entry.kind;
  }
}

function preview(entry: HistoryEntry): string {
  const part = entry.content[0];
  const text = part === undefined ? "" : part.kind === "text" ? part.text : JSON.stringify(part.value);
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > 48 ? `${line.slice(0, 47)}…` : line;
}

/** The form under a refused turn's error. */
export function RepairForm({ entries, onRepair }: RepairFormProps) {
  const choices = choicesOf(entries);
  const newestUser = [...entries].reverse().find((entry) => entry.kind === "user" && entry.position >= 1);
  const start = newestUser?.position ?? choices.at(-1)?.position;
  const [from, setFrom] = useState<number | undefined>(start);
  const [to, setTo] = useState<number | undefined>(start);
  const [sending, setSending] = useState(false);
  if (choices.length === 0 || from === undefined || to === undefined) return null;
  return (
    <form
      className="repair"
      data-testid="repair-form"
      onSubmit={(event) => {
        event.preventDefault();
        setSending(true);
        void onRepair(from, Math.max(from, to)).finally(() => setSending(false));
      }}
    >
      <span>Leave entries out of later requests:</span>
      <label>
        from{" "}
        <select
          aria-label="Leave out from"
          value={from}
          onChange={(event) => setFrom(Number(event.target.value))}
        >
          {choices.map((choice) => (
            <option key={choice.position} value={choice.position}>
              {choice.label}
            </option>
          ))}
        </select>
      </label>
      <label>
        through{" "}
        <select
          aria-label="Leave out through"
          value={to}
          onChange={(event) => setTo(Number(event.target.value))}
        >
          {choices
            .filter((choice) => choice.position >= from)
            .map((choice) => (
              <option key={choice.position} value={choice.position}>
                {choice.label}
              </option>
            ))}
        </select>
      </label>
      <button type="submit" disabled={sending}>
        Leave out
      </button>
    </form>
  );
}
