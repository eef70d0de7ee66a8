/**
 * What the Node.js floor of a plain turn (bench/turn-floor-server.ts) tells its clients: the
 * input's receipt and the stream events of one turn, shaped like the daemon's (the same event
 * types, fields and so about the same bytes), so that the client reads as much from the floor as
 * from the daemon. Each frame is one SSE message (`id:` and one `data:` line) carrying a batch of
 * events.
 *
 * Boundary rule: bench support only; no code of the daemon's (see turn-floor-store.ts).
 */

/** One stream event as the client receives it. */
export interface FloorEvent {
  type: string;
  sequence: number;
  data: unknown;
}

/** What a turn's events are made of. */
export interface FloorTurn {
  session: string;
  inputId: string;
  turnId: string;
  order: number;
  text: string;
  acceptedAt: string;
  /** The user entry's transcript position. */
  position: number;
}

/** The input's receipt: the 202's body and the `input` events' data. */
export function receipt(
  turn: FloorTurn,
  delivery: "pending" | "committed",
  state: "running" | "completed" | null,
  endedAt: string | null,
) {
  return {
    id: turn.inputId,
    session_id: turn.session,
    kind: "message",
    admission: "accepted",
    accepted_at: turn.acceptedAt,
    acceptance_order: turn.order,
    delivery,
    transcript_position: delivery === "pending" ? null : turn.position,
    turn: state === null ? null : { id: turn.turnId, state, started_at: turn.acceptedAt, ended_at: endedAt },
    client_id: null,
    sent_by: "bootstrap",
    sent_from: "127.0.0.1",
  };
}

/** A transcript entry as a `message` event shows it. */
function entry(turn: FloorTurn, position: number, kind: "user" | "assistant", text: string, at: string) {
  return {
    entry: {
      id: String(position),
      position,
      kind,
      turn_id: turn.turnId,
      input_id: kind === "user" ? turn.inputId : null,
      created_at: at,
      content: [{ kind: "text", text }],
      checkpoint_id: String(position),
      tool: null,
    },
  };
}

/** The events of a turn's start, once it is durable: the input pending then delivered, the user's entry, the status. */
export function startEvents(turn: FloorTurn): Array<{ type: string; data: unknown }> {
  return [
    { type: "input", data: { input: receipt(turn, "pending", null, null) } },
    { type: "message", data: entry(turn, turn.position, "user", turn.text, turn.acceptedAt) },
    { type: "committed", data: { high_water: turn.position } },
    { type: "input", data: { input: receipt(turn, "committed", "running", null) } },
    {
      type: "status",
      data: { phase: "running", run_id: turn.turnId, interrupt_requested: false, blocking_reason: null },
    },
  ];
}

/** A text delta of the turn's answer. */
export function textEvent(turn: FloorTurn, text: string): { type: string; data: unknown } {
  return { type: "text", data: { run_id: turn.turnId, message_id: `${turn.turnId}:1`, text } };
}

/** The provider's usage report. */
export function usageEvent(
  turn: FloorTurn,
  model: string,
  prompt: number,
  completion: number,
): { type: string; data: unknown } {
  return {
    type: "usage",
    data: {
      run_id: turn.turnId,
      model,
      prompt_tokens: prompt,
      cached_prompt_tokens: 0,
      completion_tokens: completion,
      total_tokens: prompt + completion,
    },
  };
}

/** The events of a turn's end, once it is durable: the answer's entry, the input's turn completed, the status. */
export function endEvents(
  turn: FloorTurn,
  position: number,
  answer: string,
  endedAt: string,
): Array<{ type: string; data: unknown }> {
  return [
    { type: "message", data: entry(turn, position, "assistant", answer, endedAt) },
    { type: "committed", data: { high_water: position } },
    { type: "input", data: { input: receipt(turn, "committed", "completed", endedAt) } },
    {
      type: "turn_completed",
      data: { run_id: turn.turnId, state: "completed", input_ids: [turn.inputId], outcome: "finished" },
    },
    {
      type: "status",
      data: { phase: "idle", run_id: null, interrupt_requested: false, blocking_reason: null },
    },
  ];
}

/** One SSE frame carrying `events`. */
export function frame(generation: string, cursor: number, events: readonly FloorEvent[]): string {
  return `id: ${generation}.${cursor}\ndata: ${JSON.stringify({ generation, cursor, events })}\n\n`;
}
