/** Counting the loaded sessions for the daemon's metrics. */
import type { SessionActor } from "./session-actor.js";

/** How many sessions are loaded, how many run or wait for an answer, and their stream watchers. */
export interface SessionCensus {
  loaded: number;
  running: number;
  waiting: number;
  watchers: number;
}

/** Count `actors` now. */
export function censusOf(actors: Iterable<SessionActor>): SessionCensus {
  const census: SessionCensus = { loaded: 0, running: 0, waiting: 0, watchers: 0 };
  for (const actor of actors) {
    census.loaded++;
    const phase = actor.status.phase;
    if (phase === "running") census.running++;
    else if (phase === "waiting") census.waiting++;
    census.watchers += actor.feed.watcherCount;
  }
  return census;
}
