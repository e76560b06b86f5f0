// The two ANU APIs (quantumnumbers.anu.edu.au, keyed; qrng.anu.edu.au/API/jsonI.php, legacy): how to ask,
// and how strictly to check what comes back. Pure; no network.
import type { SourceSettings } from './protocol.js';

export type ProviderSource = 'keyed' | 'legacy';

export function requestUrl(settings: SourceSettings): string {
  const url = new URL(settings.url);
  url.searchParams.set('length', String(settings.length));
  url.searchParams.set('type', 'hex16');
  url.searchParams.set('size', String(settings.size));
  return url.toString();
}

/** Bytes one block carries: keyed `size` counts 16-bit words, legacy `size` counts bytes. */
export function blockBytes(source: ProviderSource, size: number): number {
  return source === 'keyed' ? 2 * size : size;
}

export type ProviderAnswer = { ok: true; bytes: Buffer } | { ok: false; reason: string };

const hex = /^[0-9a-fA-F]*$/;
/** How much of a provider's error text reaches the log. */
const errorTextLimit = 300;

/** Checks a provider response strictly: status, shape, count, element length, hex. */
export function readProviderAnswer(source: ProviderSource, settings: Pick<SourceSettings, 'length' | 'size'>, status: number, body: string): ProviderAnswer {
  if (status !== 200) return { ok: false, reason: statusReason(source, status, body) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return { ok: false, reason: `the response is not JSON: ${excerpt(body)}` };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return { ok: false, reason: 'the response is not a JSON object' };
  const answer = parsed as Record<string, unknown>;
  if (answer.success !== true) return { ok: false, reason: `the provider reported failure: ${excerpt(JSON.stringify(answer.message ?? answer))}` };
  const shapeProblem = source === 'keyed' ? keyedShapeProblem(answer, settings) : legacyShapeProblem(answer, settings);
  if (shapeProblem !== undefined) return { ok: false, reason: shapeProblem };
  const data = answer.data;
  if (!Array.isArray(data)) return { ok: false, reason: 'data is not an array' };
  if (data.length !== settings.length) return { ok: false, reason: `data has ${data.length} blocks, ${settings.length} were asked for` };
  const elementLength = 2 * blockBytes(source, settings.size);
  for (const [index, element] of data.entries()) {
    if (typeof element !== 'string') return { ok: false, reason: `data[${index}] is not a string` };
    if (element.length !== elementLength) return { ok: false, reason: `data[${index}] has ${element.length} hex characters, ${elementLength} expected` };
    if (!hex.test(element)) return { ok: false, reason: `data[${index}] is not hex` };
  }
  return { ok: true, bytes: Buffer.from((data as string[]).join(''), 'hex') };
}

function keyedShapeProblem(answer: Record<string, unknown>, settings: Pick<SourceSettings, 'length'>): string | undefined {
  if (answer.type !== 'hex16') return `type is ${JSON.stringify(answer.type)}, "hex16" expected`;
  // The keyed API returns length as a string.
  if (answer.length !== String(settings.length)) return `length is ${JSON.stringify(answer.length)}, "${settings.length}" expected`;
  return undefined;
}

function legacyShapeProblem(answer: Record<string, unknown>, settings: Pick<SourceSettings, 'length' | 'size'>): string | undefined {
  // The legacy API answers hex16 requests with type "string", and length and size as numbers.
  if (answer.type !== 'string') return `type is ${JSON.stringify(answer.type)}, "string" expected`;
  if (answer.length !== settings.length) return `length is ${JSON.stringify(answer.length)}, ${settings.length} expected`;
  if (answer.size !== settings.size) return `size is ${JSON.stringify(answer.size)}, ${settings.size} expected`;
  return undefined;
}

function statusReason(source: ProviderSource, status: number, body: string): string {
  if (source === 'keyed' && status === 403) return `HTTP 403 ${excerpt(body)}: the API key was refused (check anu.keyed.api_key)`;
  if (source === 'keyed' && status === 429) return `HTTP 429 ${excerpt(body)}: the key's request quota is spent`;
  // The legacy API explains its rate limit in a plain-text 500 body; the log shows it as it is.
  return `HTTP ${status}: ${excerpt(body)}`;
}

function excerpt(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > errorTextLimit ? `${oneLine.slice(0, errorTextLimit)}…` : oneLine;
}
