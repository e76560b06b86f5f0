// The signature of a webhook delivery, as Stripe signs its events: HMAC-SHA256 with the channel's
// secret over `<unix seconds>.<body>`, sent as `X-Certhub-Signature: t=<unix seconds>,v1=<hex>`. The
// receiver recomputes it, compares in constant time, and refuses a timestamp too far from its clock
// (a replayed delivery).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const signatureHeader = 'x-certhub-signature';
export const deliveryHeader = 'x-certhub-delivery';
export const eventHeader = 'x-certhub-event';

export function signatureOf(secret: string, unixSeconds: number, body: string): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}

/** What a receiver does: true when `header` signs `body` with `secret`, made within `toleranceSeconds` of `nowSeconds`. */
export function verifySignature(secret: string, header: string, body: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = new Map(header.split(',').map((part) => [part.slice(0, part.indexOf('=')), part.slice(part.indexOf('=') + 1)] as const));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds || !/^[0-9a-f]{64}$/.test(v1)) return false;
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'));
}
