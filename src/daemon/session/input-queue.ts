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
import type { Admission, InputRow } from "../storage/inputs-table.js";
import type { InputCancellation, SessionStorage } from "../storage/session-storage.js";
import type { SessionFeed } from "../stream/session-feed.js";
import { publishEvent } from "./publish-event.js";

export class InputQueue {
  constructor(
    readonly sessionId: string,
    private readonly storage: SessionStorage,
    private readonly feed: SessionFeed,
    private readonly now: () => number,
  ) {}

  /** Admit an input (or recognise a retry of one); a new one is announced on the stream. */
  async admit(inputId: string, intent: InputIntent, clientId: string | null): Promise<Admission> {
    const admission = await this.storage.admitInput({
      session: this.sessionId,
      id: inputId,
      kind: intent.kind,
      intent: intentJson(intent),
      clientId,
      acceptedAt: this.now(),
    });
    if (admission.created) publishEvent(this.feed, "input", { input: admission.receipt });
    return admission;
  }

  /** The inputs waiting, in acceptance order. */
  pending(): Promise<InputRow[]> {
    return this.storage.pendingInputs(this.sessionId);
  }

  /** Cancel one waiting input ("not_pending" when it was delivered or cancelled before). */
  async cancel(inputId: string): Promise<InputCancellation> {
    const result = await this.storage.cancelInput(this.sessionId, inputId);
    if (result === "cancelled") await this.publish([inputId]);
    return result;
  }

  /** Cancel every waiting input with acceptance order <= `order`; their ids. */
  async cancelThrough(order: number): Promise<string[]> {
    const cancelled = await this.storage.cancelInputsThrough(this.sessionId, order);
    await this.publish(cancelled);
    return cancelled;
  }

  /** The receipt of one of this session's inputs (`InputUnknownError` when it has none such). */
  async receipt(inputId: string): Promise<InputReceipt> {
    const receipt = await this.storage.getReceipt(this.sessionId, inputId);
    if (receipt === null) throw new InputUnknownError(this.sessionId, inputId);
    return receipt;
  }

  /** Announce the current receipts of `inputIds` (after a turn took, ended or abandoned them). */
  async publish(inputIds: readonly string[]): Promise<void> {
    for (const id of inputIds) {
      const receipt = await this.storage.getReceipt(this.sessionId, id);
      if (receipt !== null) publishEvent(this.feed, "input", { input: receipt });
    }
  }
}

/** The intent as the JSON the inputs table fingerprints (kind and text; never client_id). */
function intentJson(intent: InputIntent): JsonObject {
  return intent.kind === "message" ? { kind: "message", text: intent.text } : { kind: "continue" };
}
