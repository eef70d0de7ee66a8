/**
 * Inputs and turns as the HTTP API shows them: the body of `PUT /sessions/{sid}/inputs/{iid}`,
 * the receipt that answers it, and the answers of cancel and interrupt.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/inputs.ts).
 */
export type {
  CancelAnswer,
  EndedTurnState,
  FirstInput,
  InputBody,
  InputDelivery,
  InputIntent,
  InputReceipt,
  InterruptAnswer,
  InterruptBody,
  PendingInput,
  TurnState,
} from "./schemas/inputs.js";
