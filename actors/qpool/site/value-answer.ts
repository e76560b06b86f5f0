// How qpool answers a value request on the wire: the value in one of four formats with its
// X-Quantum-* headers, or why there is none (503). The value routes of the site use it, and the
// benchmarks' front answers a constant value with it (the same answer without a take).
import { jsonType, prepareHeaders, textType, type HeaderList, type Reply } from '../../../src/http/reply.js';
import { HttpRefusal } from '../../../src/http/refusal.js';
import { entryBytes, entryHex, entrySource, entryTimestamp, recordAt, valueBytes } from '../values/batch.js';

export type ValueFormat = 'json' | 'hex' | 'base64' | 'binary';

/** A value to answer: entry `index` of `values`, and the values left after it. */
export interface ValueToAnswer {
  values: Buffer;
  index: number;
  available: number;
}

export const noStore = { 'Cache-Control': 'no-store' } as const;
/** Seconds a client should wait after a 503: values arrive in batches, rarely within seconds. */
const retryAfterSeconds = '30';

const contentTypes: Record<ValueFormat, string> = { json: jsonType, hex: textType, base64: textType, binary: 'application/octet-stream' };
// The headers every value answer carries, encoded once: writing them is most of a value's cost.
const fixedHeaders = Object.fromEntries(
  (['json', 'hex', 'base64', 'binary'] as const).map((format) => [
    format,
    prepareHeaders({ 'Content-Type': contentTypes[format], ...noStore, 'X-Quantum-Bits': '1024', 'X-Quantum-Format': format }),
  ]),
) as Record<ValueFormat, HeaderList>;
const timestampName = Buffer.from('X-Quantum-Timestamp');
const sourceName = Buffer.from('X-Quantum-Source');
const availableName = Buffer.from('X-Quantum-Available');
/** Values of one arrival share their collection time: its text is made once. */
const lastTimestamp = { millis: Number.NaN, text: '' };

function timestampText(millis: number): string {
  if (millis !== lastTimestamp.millis) {
    lastTimestamp.millis = millis;
    lastTimestamp.text = new Date(millis).toISOString();
  }
  return lastTimestamp.text;
}

export function answerValue(reply: Reply, format: ValueFormat, { values, index, available }: ValueToAnswer): void {
  const headers: HeaderList = [
    ...fixedHeaders[format],
    [timestampName, timestampText(entryTimestamp(values, index))],
    [sourceName, entrySource(values, index)],
    [availableName, String(available)],
  ];
  const start = index * entryBytes;
  switch (format) {
    case 'json':
      reply.send(200, JSON.stringify(recordAt(values, index)), headers);
      break;
    case 'hex':
      reply.send(200, `${entryHex(values, index)}\n`, headers);
      break;
    case 'base64':
      reply.send(200, `${values.toString('base64', start, start + valueBytes)}\n`, headers);
      break;
    case 'binary':
      reply.send(200, values.subarray(start, start + valueBytes), headers);
      break;
  }
}

/**
 * No value (an empty pool, a failed write): ERR_UNAVAILABLE with a Retry-After. JSON for /api/random;
 * plain text for the others, so a client reading bytes never takes an error for a value.
 */
export function answerUnavailable(reply: Reply, format: ValueFormat, message: string): void {
  const refusal = new HttpRefusal('ERR_UNAVAILABLE', message, { ...noStore, 'Retry-After': retryAfterSeconds });
  if (format === 'json') reply.error(refusal);
  else reply.send(refusal.status, `${message}\n`, { 'Content-Type': textType, ...refusal.headers });
}
