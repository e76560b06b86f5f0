// Reading the body of a response from a service outside (a DNS provider, ANU) with a bound: a
// service that answers without end fails the request instead of filling memory.

/** The body as UTF-8 text; `tooLarge` makes the error once more than `maxBytes` arrived (the rest is not read). */
export async function readBoundedText(response: Response, maxBytes: number, tooLarge: () => Error): Promise<string> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: Uint8Array };
    if (done) break;
    received += value.byteLength;
    if (received > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
