/**
 * A session's input queue: durable, idempotent admission (a receipt only once the input is
 * stored), cancellation of waiting inputs, and receipts published on the session's stream
 * whenever one changes.
 *
 * Boundary rule: inputs only. Which inputs a turn takes and when is the turn scheduler's; an
 * input becomes part of the log only when a turn delivers it.
 */
import type { InputIntent, InputReceipt } from "../../api/inputs.js";
import type { JsonObject } from "../../model/json.js";
import { InputUnknownError } from "../errors.js";
import {
  type Admission,
  type InputRow,
  type InputSource,
  type NewInput,
  pendingReceipt,
} from "../storage/inputs-table.js";
import type { InputCancellation, SessionStorage } from "../storage/session-storage.js";
import type { SessionOutlet } from "./session-outlet.js";

export class InputQueue {
  readonly sessionId: string;
  readonly #outlet: SessionOutlet;
  readonly #storage: SessionStorage;
  /**
   * True when the queue is known empty without reading it: a read found it empty and no
   * admission ran since. Only this queue adds waiting inputs to its session (the session's
   * actor is its only writer, fenced per lease epoch, and a turn's start, a shortcut admission
   * with its turn included, and cancellations only take inputs out of the queue), so a turn's
   * end finds the queue empty without a statement.
   */
  #knownEmpty = false;
  /** Admissions in flight: a read that overlaps one may have missed it. */
  #admitting = 0;
  /** Bumped whenever an admission starts or ends (a read seeing it change proves nothing). */
  #admissions = 0;

  constructor(outlet: SessionOutlet, storage: SessionStorage) {
    this.sessionId = outlet.sessionId;
    this.#outlet = outlet;
    this.#storage = storage;
  }

  /** Admit an input (or recognise a retry of one); a new one is announced on the stream. */
  async admit(inputId: string, intent: InputIntent, source: InputSource): Promise<Admission> {
    this.#knownEmpty = false;
    this.#admitting++;
    this.#admissions++;
    let admission: Admission;
    try {
      admission = await this.#storage.admitInput(this.#newInput(inputId, intent, source));
    } finally {
      this.#admitting--;
      this.#admissions++;
      this.#knownEmpty = false;
    }
    if (admission.created) this.announce(admission.receipt);
    return admission;
  }

  /**
   * A new input to be admitted in the same commit as the turn that delivers it (see
   * `TurnScheduler.admitAndStart`), as acceptance number `order`: its row writes, its queue row
   * and its receipt once admitted. Nothing is written or announced here.
   */
  prepare(inputId: string, intent: InputIntent, source: InputSource, order: number): FreshAdmission {
    return freshAdmission(this.#newInput(inputId, intent, source), order);
  }

  /** Tell the stream an input was admitted (its receipt, pending). */
  announce(receipt: InputReceipt): void {
    this.#outlet.publish("input", { input: receipt });
  }

  /** The inputs waiting, in acceptance order (none, without a read, when the queue is known empty). */
  async pending(): Promise<InputRow[]> {
    if (this.#knownEmpty) return [];
    const before = this.#admissions;
    const quiet = this.#admitting === 0;
    const rows = await this.#storage.pendingInputs(this.sessionId);
    // Only a read that no admission overlapped saw every admission committed before it.
    if (rows.length === 0 && quiet && this.#admitting === 0 && this.#admissions === before) {
      this.#knownEmpty = true;
    }
    return rows;
  }

  /** Cancel one waiting input ("not_pending" when it was delivered or cancelled before). */
  async cancel(inputId: string): Promise<InputCancellation> {
    const result = await this.#storage.cancelInput(this.sessionId, inputId);
    if (result === "cancelled") await this.publish([inputId]);
    return result;
  }

  /** Cancel every waiting input with acceptance order <= `order`; their ids. */
  async cancelThrough(order: number): Promise<string[]> {
    const cancelled = await this.#storage.cancelInputsThrough(this.sessionId, order);
    await this.publish(cancelled);
    return cancelled;
  }

  /** The receipt of one of this session's inputs (`InputUnknownError` when it has none such). */
  async receipt(inputId: string): Promise<InputReceipt> {
    const receipt = await this.#storage.getReceipt(this.sessionId, inputId);
    if (receipt === null) throw new InputUnknownError(this.sessionId, inputId);
    return receipt;
  }

  /** Announce receipts the caller built from what it just committed (see `deliveredReceipt`). */
  publishReceipts(receipts: readonly InputReceipt[]): void {
    for (const receipt of receipts) this.#outlet.publish("input", { input: receipt });
  }

  /** Announce the current receipts of `inputIds`, as stored (after a turn took, ended or abandoned them). */
  async publish(inputIds: readonly string[]): Promise<void> {
    for (const id of inputIds) {
      const receipt = await this.#storage.getReceipt(this.sessionId, id);
      if (receipt !== null) this.#outlet.publish("input", { input: receipt });
    }
  }

  /** The input as the inputs table admits it, accepted now. */
  #newInput(inputId: string, intent: InputIntent, source: InputSource): NewInput {
    return newInput(this.sessionId, inputId, intent, source, this.#outlet.now());
  }
}

/** Input `inputId` of session `sessionId` as the inputs table admits it, accepted at `acceptedAt`. */
export function newInput(
  sessionId: string,
  inputId: string,
  intent: InputIntent,
  source: InputSource,
  acceptedAt: number,
): NewInput {
  return {
    session: sessionId,
    id: inputId,
    kind: intent.kind,
    intent: intentJson(intent),
    ...source,
    acceptedAt,
  };
}

/** `input` about to be admitted as acceptance number `order` in the commit of the turn that delivers it. */
export function freshAdmission(input: NewInput, order: number): FreshAdmission {
  return {
    writes: { input, order },
    receipt: pendingReceipt(input, order),
    row: {
      id: input.id,
      session: input.session,
      kind: input.kind,
      intent: input.intent,
      clientId: input.clientId ?? null,
      sentBy: input.sentBy ?? null,
      sentFrom: input.sentFrom ?? null,
      acceptedAt: input.acceptedAt,
      acceptanceOrder: order,
      delivery: "pending",
      transcriptPosition: null,
      turnId: null,
    },
  };
}

/** An input about to be admitted with its turn's start (see `InputQueue.prepare`). */
export interface FreshAdmission {
  /** The admission as the turn start's row writes carry it. */
  writes: { input: NewInput; order: number };
  /** Its receipt once admitted: pending, no turn yet. */
  receipt: InputReceipt;
  /** Its row in the queue, as the turn delivers it. */
  row: InputRow;
}

/** The intent as the JSON the inputs table fingerprints (kind and text; never client_id). */
function intentJson(intent: InputIntent): JsonObject {
  return intent.kind === "message" ? { kind: "message", text: intent.text } : { kind: "continue" };
}
