/**
 * One fake provider for a whole test file: started before its tests, closed after them, and
 * reset before each test so no test sees another's requests, queued replies or context window.
 *
 * Boundary rule: test support only; it knows Vitest's hooks and the fake, nothing of Skein's code.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { FakeProvider, type Script } from "./server.js";

export interface WithFakeProviderOptions {
  /** The script set again before each test (the fake's default text answer when left out). */
  script?: Script;
}

/** Runs one fake provider for the calling test file and returns an accessor for it. */
export function withFakeProvider(options: WithFakeProviderOptions = {}): () => FakeProvider {
  let fake: FakeProvider | undefined;
  beforeAll(async () => {
    fake = await FakeProvider.start();
  });
  afterAll(async () => {
    await fake?.close();
  });
  beforeEach(() => {
    fake?.reset();
    if (fake !== undefined && options.script !== undefined) fake.script = options.script;
  });
  return () => {
    // Outside a test (while the file is collected) there is no server yet: say so plainly.
    if (fake === undefined) throw new Error("the fake provider runs only inside the file's tests");
    return fake;
  };
}
