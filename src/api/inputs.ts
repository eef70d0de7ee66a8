/**
 * Inputs and turns as the HTTP API shows them: the body of `PUT /sessions/{sid}/inputs/{iid}`,
 * the receipt that answers it, and the answers of cancel and interrupt.
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

/** Body of `PUT /sessions/{sid}/inputs/{iid}`. */
export type InputBody =
  | { kind: "message"; text: string; client_id?: string }
  | { kind: "continue"; client_id?: string };

/** What a client asked for in an input: its body without `client_id` (retries may differ in it). */
export type InputIntent = { kind: "message"; text: string } | { kind: "continue" };

/** Where an admitted input stands. */
export type InputDelivery = "pending" | "committed" | "cancelled";

/** A turn's state; a turn's id is also its `run_id`. */
export type TurnState = "running" | "completed" | "interrupted" | "abandoned" | "failed";

/** The state of a turn that has ended. */
export type EndedTurnState = Exclude<TurnState, "running">;

/** The receipt of an input: `GET /sessions/{sid}/inputs/{iid}` and the 202 of `PUT`. */
export interface InputReceipt {
  id: string;
  session_id: string;
  kind: string;
  admission: "accepted";
  accepted_at: string;
  acceptance_order: number;
  delivery: InputDelivery;
  /** The log position of the entry that delivered the input, once delivered. */
  transcript_position: number | null;
  turn: null | { id: string; state: TurnState; started_at: string; ended_at: string | null };
  client_id: string | null;
}

/** A waiting input as a snapshot's `pending_inputs` lists it. */
export interface PendingInput {
  id: string;
  kind: string;
  accepted_at: string;
  acceptance_order: number;
  delivery: "pending";
}

/** Body of `POST /sessions/{sid}/interrupt`. */
export interface InterruptBody {
  /** The turn to stop; null stops none (only queued inputs are cancelled). */
  run_id: string | null;
  /** Queued inputs with an acceptance order up to this one are cancelled. */
  through_input_order: number;
}

/** The answer of `POST /sessions/{sid}/interrupt`. */
export interface InterruptAnswer {
  run_id: string | null;
  state: "requested" | "already_ended";
  cancelled_input_ids: string[];
}

/** The answer of `POST /sessions/{sid}/inputs/{iid}/cancel`. */
export interface CancelAnswer {
  result: "cancelled" | "interrupt_requested" | "not_pending";
  input: InputReceipt;
}
