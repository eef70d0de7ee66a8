/** All of a readable stream as text: a prompt or a key given as `-` on stdin. */

/** All of `stream` as text (read as UTF-8 once it has ended). */
export async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream)
    chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString("utf8");
}
