/**
 * A scripted LlmClient for tests: the nth request gets the nth list of steps. Steps are stream
 * events plus a few directives (delay, hang forever, fail mid-stream) so timing and cancellation
 * can be tested. Every request is recorded (deep-copied) with the signal it came with.
 *
 * Boundary rule: stands in for a provider (external), never for a Skein component.
 */
import type { StreamEvent } from "../../src/model/events.js";
import { type LlmClient, LlmClientError, type LlmRequest } from "../../src/model/llm-client.js";

export type MockStep =
  | StreamEvent
  /** Wait this long before the next step (cut short by an abort). */
  | { type: "mock_delay"; ms: number }
  /** Never end; by default an abort ends it with LlmClientError kind "aborted". */
  | { type: "mock_hang"; ignoreAbort: boolean }
  /** Throw this error mid-stream. */
  | { type: "mock_fail"; error: LlmClientError };

/** A pause between two events. */
export function mockDelay(ms: number): MockStep {
  return { type: "mock_delay", ms };
}

/** A stream that never ends; with `ignoreAbort` it does not even honour the abort signal. */
export function mockHang(ignoreAbort = false): MockStep {
  return { type: "mock_hang", ignoreAbort };
}

/** A mid-stream failure. */
export function mockFail(error: LlmClientError): MockStep {
  return { type: "mock_fail", error };
}

export class MockLlmClient implements LlmClient {
  readonly provider = "mock";
  readonly model = "mock-model";
  /** Requests received, in order, deep-copied when received. */
  readonly requests: LlmRequest[] = [];
  /** The abort signal of each request, in order. */
  readonly signals: AbortSignal[] = [];
  /** Stream events handed out so far, over all requests. */
  readonly emitted: StreamEvent[] = [];
  private responses: MockStep[][];

  /** A client with one scripted response. */
  constructor(events: MockStep[]) {
    this.responses = [events];
  }

  /** A client whose nth request gets `responses[n]`; further requests fail. */
  static withResponses(responses: MockStep[][]): MockLlmClient {
    const client = new MockLlmClient([]);
    client.responses = responses;
    return client;
  }

  /** How many requests were made. */
  get calls(): number {
    return this.requests.length;
  }

  stream(request: LlmRequest, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const index = this.requests.length;
    this.requests.push(structuredClone(request));
    this.signals.push(signal);
    return this.play(this.responses[index], signal);
  }

  private async *play(steps: MockStep[] | undefined, signal: AbortSignal): AsyncGenerator<StreamEvent> {
    if (steps === undefined) {
      throw new LlmClientError("api", this.provider, "No more mock responses", {
        status: 500,
        code: "mock_error",
      });
    }
    for (const step of steps) {
      if (signal.aborted) throw abortedError(this.provider);
      switch (step.type) {
        case "mock_delay":
          await wait(step.ms, signal);
          if (signal.aborted) throw abortedError(this.provider);
          break;
        case "mock_hang":
          await hang(step.ignoreAbort ? undefined : signal);
          throw abortedError(this.provider);
        case "mock_fail":
          throw step.error;
        default:
          this.emitted.push(step);
          yield step;
      }
    }
  }
}

function abortedError(provider: string): LlmClientError {
  return new LlmClientError("aborted", provider, "Request aborted");
}

function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}

/** Resolves only when `signal` aborts; without a signal, never. */
function hang(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    signal?.addEventListener("abort", () => resolve(), { once: true });
  });
}
