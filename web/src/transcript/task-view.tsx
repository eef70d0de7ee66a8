/**
 * A `task` call in the parent's transcript: which agent works on what, how far it is (running,
 * waiting for an approval in the child, or how it ended), the child's tokens, and a link to the
 * child's session page, where its work streams live.
 */
import type { ReactNode } from "react";
import type { TaskFacts } from "./task-state.js";

/** The head of a task block (its result, once there, goes beneath it like any call's). */
export function TaskHead({ facts, fork }: { facts: TaskFacts; fork: ReactNode }) {
  const live = facts.state === "running" || facts.state.startsWith("waiting");
  return (
    <div className="task-head">
      <span className="tool-name">task</span> <strong className="task-agent">{facts.agent}</strong>{" "}
      <span className={`task-state ${live ? "live" : facts.state}`} data-testid="task-state">
        {facts.state}
      </span>
      {facts.tokens === null ? null : (
        <span className="task-tokens" data-testid="task-tokens">
          {" "}
          {facts.tokens.toLocaleString()} tokens
        </span>
      )}
      {facts.childId === null ? null : (
        <a className="task-link" href={`#/sessions/${facts.childId}`} data-testid="task-link">
          {live ? "follow live" : "open its session"}
        </a>
      )}
      {fork}
      {facts.prompt === "" ? null : <div className="task-prompt">{facts.prompt}</div>}
    </div>
  );
}
