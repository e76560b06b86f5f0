// One provider request: a GET with a deadline and a bound on the body, read as text.

/** The largest legacy answer (1024 blocks of 1024 bytes) is about 2.1 MB of JSON; anything far larger is not ANU. */
export const maxResponseBytes = 4 * 1024 * 1024;

export interface TextResponse {
  status: number;
  body: string;
}

export async function fetchText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<TextResponse> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  const reader = response.body?.getReader();
  if (reader === undefined) return { status: response.status, body: '' };
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = (await reader.read()) as { done: boolean; value: Uint8Array };
    if (done) break;
    received += value.byteLength;
    if (received > maxResponseBytes) {
      await reader.cancel();
      throw new Error(`the response is larger than ${maxResponseBytes} bytes`);
    }
    chunks.push(value);
  }
  return { status: response.status, body: Buffer.concat(chunks).toString('utf8') };
}
