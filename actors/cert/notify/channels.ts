// The channels of `notify.channels`, each a Sender for the queue (queue.ts): a generic JSON webhook
// (signed when it has a secret: signature.ts), ntfy, Slack- and Discord-compatible incoming webhooks,
// and e-mail (email.ts). An HTTP answer 2xx is delivered, 410 is given up, anything else is retried.
import { readBoundedText } from '../../../src/http/bounded-response.js';
import { retryAfterMs } from '../../../src/http/retry-after.js';
import type { Clock } from '../../../src/actor/clock.js';
import { emailSender } from './email.js';
import type { ChannelSettings } from './protocol.js';
import type { Delivery, Outcome, Sender } from './queue.js';
import { deliveryHeader, eventHeader, signatureHeader, signatureOf } from './signature.js';
import { noticeLines, noticeTitle, priorityOf, tagsOf } from './words.js';

const requestTimeoutMs = 10_000;
const maxAnswerBytes = 64 * 1024;

interface HttpRequest {
  headers: Record<string, string>;
  body: string;
}

export function senderOf(channel: ChannelSettings, clock: Clock): Sender {
  if (channel.type === 'email') return emailSender(channel.name, channel.smtp, channel.from, channel.to);
  // Logs name an HTTP channel by its origin only: a webhook's path often carries a secret.
  const where = new URL(channel.url).origin;
  const request = requestOf(channel, clock);
  return {
    name: channel.name,
    where,
    send: (delivery, signal) => post(channel.url, { ...request(delivery), signal }, clock),
  };
}

function requestOf(channel: Exclude<ChannelSettings, { type: 'email' }>, clock: Clock): (delivery: Delivery) => HttpRequest {
  switch (channel.type) {
    case 'webhook':
      return (delivery) => {
        const body = JSON.stringify(delivery.notice);
        const headers: Record<string, string> = {
          'Content-Type': 'application/json',
          [deliveryHeader]: delivery.id,
          [eventHeader]: delivery.notice.event,
        };
        if (channel.secret !== undefined) headers[signatureHeader] = signatureOf(channel.secret, Math.floor(clock.now() / 1000), body);
        return { headers, body };
      };
    case 'ntfy':
      return (delivery) => ({
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          [deliveryHeader]: delivery.id,
          Title: asciiHeader(noticeTitle(delivery.notice)),
          Priority: String(priorityOf(delivery.notice)),
          Tags: tagsOf(delivery.notice),
          ...(channel.token === undefined ? {} : { Authorization: `Bearer ${channel.token}` }),
        },
        body: noticeLines(delivery.notice).join('\n') || noticeTitle(delivery.notice),
      });
    case 'slack':
      return (delivery) => {
        const text = [`*${noticeTitle(delivery.notice)}*`, ...noticeLines(delivery.notice)].join('\n');
        return {
          headers: { 'Content-Type': 'application/json', [deliveryHeader]: delivery.id },
          body: JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] }),
        };
      };
    case 'discord':
      return (delivery) => ({
        headers: { 'Content-Type': 'application/json', [deliveryHeader]: delivery.id },
        // No mention is acted on: a failure's reason comes from the CA and must not ping @everyone.
        body: JSON.stringify({
          content: [`**${noticeTitle(delivery.notice)}**`, ...noticeLines(delivery.notice)].join('\n').slice(0, 2000),
          allowed_mentions: { parse: [] },
        }),
      });
    default:
      throw new Error(`this should not happen: channel type ${(channel as { type: string }).type}`);
  }
}

/** A header value is ASCII: anything else becomes '?'. */
function asciiHeader(text: string): string {
  return text.replace(/[^\x20-\x7e]/g, '?');
}

async function post(url: string, request: HttpRequest & { signal: AbortSignal }, clock: Clock): Promise<Outcome> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'User-Agent': 'certhub', ...request.headers },
    body: request.body,
    signal: AbortSignal.any([request.signal, AbortSignal.timeout(requestTimeoutMs)]),
    redirect: 'error',
  });
  // Read (boundedly) so the connection can be reused; the content does not matter.
  await readBoundedText(response, maxAnswerBytes, () => new Error(`its answer is larger than ${maxAnswerBytes} bytes`)).catch(() => '');
  return outcomeOfStatus(response.status, response.headers.get('retry-after'), clock.now());
}

export function outcomeOfStatus(status: number, retryAfter: string | null, now: number): Outcome {
  if (status >= 200 && status < 300) return { type: 'delivered' };
  if (status === 410) return { type: 'gone', reason: 'HTTP 410' };
  const asked = retryAfterMs(retryAfter, now);
  return { type: 'retry', reason: `HTTP ${status}`, ...(asked === undefined ? {} : { retryAfterMs: asked }) };
}
