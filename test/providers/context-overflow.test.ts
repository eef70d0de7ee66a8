/**
 * Each vendor's answer to a prompt longer than the context window, as the real adapters turn it
 * into a typed error, is recognised as "context too long"; other refusals are not.
 */
import { describe, expect, it } from "vitest";
import { isContextOverflow, reportedContextWindow } from "../../src/providers/context-overflow.js";
import { contextOverflowReply } from "../support/fake-provider/context-overflow.js";
import { httpError } from "../support/fake-provider/index.js";
import { withFakeProvider } from "../support/fake-provider/with-fake-provider.js";
import { ask, clientFor, collect, protocols } from "./stream-helpers.js";

const fake = withFakeProvider();

describe.each(protocols)("a context-too-long answer of %s", (protocol) => {
  it("is a typed error that says so", async () => {
    fake().queue(contextOverflowReply(protocol, 210_000, 200_000));
    const { error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(error).toBeDefined();
    expect(isContextOverflow(error!)).toBe(true);
  });

  it("names the model's window where the vendor says it (Responses does not)", async () => {
    fake().queue(contextOverflowReply(protocol, 210_000, 200_000));
    const { error } = await collect(clientFor(protocol, fake().baseUrl), ask());
    expect(reportedContextWindow(error!)).toBe(protocol === "responses" ? null : 200_000);
  });

  it("is told apart from other refusals (a bad request, a rate limit)", async () => {
    fake().queue(httpError(400, { message: "Unsupported parameter: 'temperature'" }));
    const bad = await collect(clientFor(protocol, fake().baseUrl, { retry: { maxAttempts: 1 } }), ask());
    expect(isContextOverflow(bad.error!)).toBe(false);
    fake().queue(httpError(429, { message: "slow down" }));
    const limited = await collect(clientFor(protocol, fake().baseUrl, { retry: { maxAttempts: 1 } }), ask());
    expect(isContextOverflow(limited.error!)).toBe(false);
  });
});

it("recognises the Responses error event inside a stream", async () => {
  fake().queue(contextOverflowReply("responses", 500_000, 400_000, { inStream: true }));
  const { error } = await collect(clientFor("responses", fake().baseUrl), ask());
  expect(error?.code).toBe("context_length_exceeded");
  expect(isContextOverflow(error!)).toBe(true);
});
