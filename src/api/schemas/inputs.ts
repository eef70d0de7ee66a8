/**
 * Inputs and turns on the wire, as TypeBox schemas and the types derived from them: the body of
 * `PUT /sessions/{sid}/inputs/{iid}` (and a new session's first input), the receipt that answers it, a snapshot's waiting inputs,
 * and the bodies and answers of cancel and interrupt.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { named } from "./named-schema.js";
import { closedObject, literalUnion, NullableString, namedObject, Time } from "./parts.js";

const ClientId = Type.Optional(Type.String({ maxLength: 512 }));
const MessageText = Type.String({ maxLength: 4 * 1024 * 1024 });

/** Body of `PUT /sessions/{sid}/inputs/{iid}`. */
export const InputBodySchema = Type.Union([
  closedObject({ kind: Type.Literal("message"), text: MessageText, client_id: ClientId }),
  closedObject({ kind: Type.Literal("continue"), client_id: ClientId }),
]);
export type InputBody = Static<typeof InputBodySchema>;

/**
 * A new session's first input, sent with its creation (`input` of `PUT /sessions/{id}`): the
 * input route's body plus the input's id (a fresh UUIDv7 the client chose, as in that route's path).
 */
export const FirstInputSchema = named(
  "FirstInput",
  Type.Union([
    closedObject({
      id: Type.String(),
      kind: Type.Literal("message"),
      text: MessageText,
      client_id: ClientId,
    }),
    closedObject({ id: Type.String(), kind: Type.Literal("continue"), client_id: ClientId }),
  ]),
);
export type FirstInput = Static<typeof FirstInputSchema>;

/** Each member of a union without its `client_id`. */
type WithoutClientId<T> = T extends unknown ? Omit<T, "client_id"> : never;

/** What a client asked for in an input: its body without `client_id` (retries may differ in it). */
export type InputIntent = WithoutClientId<InputBody>;

const InputDeliverySchema = literalUnion("pending", "committed", "cancelled");

/** Where an admitted input stands. */
export type InputDelivery = Static<typeof InputDeliverySchema>;

const EndedTurnStateSchema = literalUnion("completed", "interrupted", "abandoned", "failed");

/** The state of a turn that has ended. */
export type EndedTurnState = Static<typeof EndedTurnStateSchema>;

/** A turn's state; a turn's id is also its `run_id`. */
export type TurnState = "running" | EndedTurnState;

/** The receipt of an input: `GET /sessions/{sid}/inputs/{iid}` and the 202 of `PUT`. */
export const InputReceiptSchema = namedObject("InputReceipt", {
  id: Type.String(),
  session_id: Type.String(),
  kind: Type.String(),
  admission: Type.Literal("accepted"),
  accepted_at: Time,
  acceptance_order: Type.Integer({ minimum: 0 }),
  delivery: InputDeliverySchema,
  /** The log position of the entry that delivered the input, once delivered. */
  transcript_position: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  turn: Type.Union([
    Type.Null(),
    closedObject({
      id: Type.String(),
      state: Type.Union([Type.Literal("running"), ...EndedTurnStateSchema.anyOf]),
      started_at: Time,
      ended_at: Type.Union([Time, Type.Null()]),
    }),
  ]),
  client_id: NullableString,
  /** The name of the token that sent the input (`bootstrap`: the daemon's own); null: not recorded (a schedule's firing). */
  sent_by: NullableString,
  /** The address it came from (behind SKEIN_TRUST_PROXY: the forwarded client's); null: not recorded. */
  sent_from: NullableString,
});
export type InputReceipt = Static<typeof InputReceiptSchema>;

/** A waiting input as a snapshot's `pending_inputs` lists it. */
export const PendingInputSchema = closedObject({
  id: Type.String(),
  kind: Type.String(),
  accepted_at: Time,
  acceptance_order: Type.Integer({ minimum: 0 }),
  delivery: Type.Literal("pending"),
});
export type PendingInput = Static<typeof PendingInputSchema>;

/** Body of `POST /sessions/{sid}/interrupt`. */
export const InterruptBodySchema = closedObject({
  /** The turn to stop; null stops none (only queued inputs are cancelled). */
  run_id: NullableString,
  /** Queued inputs with an acceptance order up to this one are cancelled. */
  through_input_order: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
});
export type InterruptBody = Static<typeof InterruptBodySchema>;

/** The answer of `POST /sessions/{sid}/interrupt`. */
export const InterruptAnswerSchema = closedObject({
  run_id: NullableString,
  state: literalUnion("requested", "already_ended"),
  cancelled_input_ids: Type.Array(Type.String()),
});
export type InterruptAnswer = Static<typeof InterruptAnswerSchema>;

/** The answer of `POST /sessions/{sid}/inputs/{iid}/cancel`. */
export const CancelAnswerSchema = closedObject({
  result: literalUnion("cancelled", "interrupt_requested", "not_pending"),
  input: InputReceiptSchema,
});
export type CancelAnswer = Static<typeof CancelAnswerSchema>;
