/**
 * `npm run bench -- providers`: decoding speed of each protocol's real path (SSE decoder +
 * protocol parser, exactly what the client runs on received bytes) over a recorded stream of
 * 10,000 text deltas held in memory, against a baseline that only splits the same bytes into
 * lines and `JSON.parse`s each data line. Target ratio ≥ 0.5.
 */
import { decodeStream, protocolAdapter } from "../src/providers/index.js";
import type { ProviderProtocol } from "../src/providers/provider-profile.js";
import { deltas, encodeContext, encodeReplyText } from "../test/support/fake-provider/index.js";
import { type Figure, figure, writeReport } from "./report.js";

const protocols: ProviderProtocol[] = ["chat_completions", "responses", "anthropic", "gemini"];
const deltaCount = 10_000;
/** Socket reads are typically up to 16 KiB; the stream is replayed in such chunks. */
const chunkBytes = 16 * 1024;
const rounds = 15;

/** The recorded stream: the fake provider's exact bytes for 10,000 short deltas. */
function recordedStream(protocol: ProviderProtocol): Uint8Array[] {
  const reply = deltas(deltaCount, (index) => `tok${index % 97} `);
  const bytes = new TextEncoder().encode(encodeReplyText(protocol, reply, encodeContext("bench-model")));
  const chunks: Uint8Array[] = [];
  for (let start = 0; start < bytes.length; start += chunkBytes)
    chunks.push(bytes.subarray(start, start + chunkBytes));
  return chunks;
}

async function* replay(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}

/** Our path: returns the number of normalized events. */
async function decodeWithParser(protocol: ProviderProtocol, chunks: Uint8Array[]): Promise<number> {
  const adapter = protocolAdapter({ protocol, model: "bench-model", apiKey: "k" }, "k");
  let count = 0;
  for await (const batch of decodeStream(replay(chunks), adapter.createParser(), adapter.provider)) {
    count += batch.length;
  }
  return count;
}

/** The baseline: lines, and JSON.parse of every data line; returns the number of parsed lines. */
async function decodeBaseline(chunks: Uint8Array[]): Promise<number> {
  const decoder = new TextDecoder();
  let carry = "";
  let parsed = 0;
  let sink: unknown;
  for await (const chunk of replay(chunks)) {
    const text = carry + decoder.decode(chunk, { stream: true });
    const lines = text.split("\n");
    carry = lines.pop() ?? "";
    for (const line of lines) {
      if (!line.startsWith("data: ")) continue;
      const data = line.slice(6).trimEnd();
      if (data === "[DONE]") continue;
      sink = JSON.parse(data);
      parsed++;
    }
  }
  if (sink === undefined) throw new Error("baseline parsed nothing");
  return parsed;
}

/** Median wall time of `rounds` runs (after a warm-up), in seconds. */
async function medianSeconds(run: () => Promise<number>): Promise<number> {
  for (let warm = 0; warm < 3; warm++) await run();
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e9);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** Measures every protocol and writes `bench/results/providers.json`. */
export async function run(): Promise<void> {
  const figures: Figure[] = [];
  for (const protocol of protocols) {
    const chunks = recordedStream(protocol);
    const bytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const events = await decodeWithParser(protocol, chunks);
    const ours = await medianSeconds(() => decodeWithParser(protocol, chunks));
    const baseline = await medianSeconds(() => decodeBaseline(chunks));
    figures.push(
      figure(
        `decode_${protocol}`,
        events / ours,
        "events/s",
        events / baseline,
        `${deltaCount} deltas, ${events} events, ${(bytes / 1024).toFixed(0)} KiB in ${chunkBytes / 1024} KiB chunks; ` +
          `baseline = split lines + JSON.parse each data line, same bytes; target ratio >= 0.5`,
      ),
    );
  }
  writeReport("providers", figures);
}
