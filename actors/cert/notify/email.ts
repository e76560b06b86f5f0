// E-mail through an SMTP server (nodemailer): one message per delivery, its Message-ID made from the
// delivery id, so a message sent again after a crash is the same message. A permanent refusal (an SMTP
// 5xx other than a failed login) is given up; anything else is retried.
import { createTransport } from 'nodemailer';
import type { SmtpSettings } from './protocol.js';
import type { Outcome, Sender } from './queue.js';
import { noticeLines, noticeTitle } from './words.js';

export function emailSender(name: string, smtp: SmtpSettings, from: string, to: readonly string[]): Sender {
  const transport = createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.security === 'tls',
    requireTLS: smtp.security === 'starttls',
    ignoreTLS: smtp.security === 'none',
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
    ...(smtp.user === undefined ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
  });
  return {
    name,
    where: `smtp://${smtp.host}:${smtp.port}`,
    async send(delivery): Promise<Outcome> {
      try {
        await transport.sendMail({
          from,
          to: [...to],
          subject: noticeTitle(delivery.notice),
          text: `${[...noticeLines(delivery.notice), `Event: ${delivery.notice.event}`, `At: ${delivery.notice.at}`].join('\n')}\n`,
          messageId: `<${delivery.id}@certhub>`,
          headers: { 'X-Certhub-Delivery': delivery.id, 'X-Certhub-Event': delivery.notice.event },
        });
        return { type: 'delivered' };
      } catch (error) {
        const { responseCode, code, message } = error as { responseCode?: number; code?: string; message?: string };
        const reason = responseCode === undefined ? (code ?? message ?? String(error)) : `SMTP ${responseCode}`;
        if (responseCode !== undefined && responseCode >= 500 && code !== 'EAUTH') return { type: 'gone', reason };
        return { type: 'retry', reason };
      }
    },
  };
}
