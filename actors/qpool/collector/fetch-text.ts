// One provider request: a GET with a deadline and a bound on the body, read as text.
import { readBoundedText } from '../../../src/http/bounded-response.js';

/** The largest legacy answer (1024 blocks of 1024 bytes) is about 2.1 MB of JSON; anything far larger is not ANU. */
export const maxResponseBytes = 4 * 1024 * 1024;

export interface TextResponse {
  status: number;
  body: string;
}

export async function fetchText(url: string, headers: Record<string, string>, timeoutMs: number): Promise<TextResponse> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
  const body = await readBoundedText(response, maxResponseBytes, () => new Error(`the response is larger than ${maxResponseBytes} bytes`));
  return { status: response.status, body };
}
