// Notices to channels: each notice is queued (queue.ts) once for every channel subscribed to its
// event, or held for the channel's daily digest (digest.ts) when it has digest_at.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { Notify } from '../domains/notices.js';
import { senderOf } from './channels.js';
import { DigestBook } from './digest.js';
import type { NotifySettings } from './protocol.js';
import { DeliveryQueue, defaultQueueSettings } from './queue.js';
import type { Documents } from '../store/documents.js';

export interface Notifier {
  notify: Notify;
  queue: DeliveryQueue;
  digests: DigestBook;
  /** Starts the deliveries and the digests. */
  start(): void;
  /** Stops the digests, then the deliveries. */
  stop(): Promise<void>;
}

export async function openNotifier(documents: Documents, settings: NotifySettings, deps: { clock: Clock; log: Logger }): Promise<Notifier> {
  const queue = await DeliveryQueue.open(documents, {
    ...deps,
    senders: settings.channels.map((channel) => senderOf(channel, deps.clock)),
    settings: { ...defaultQueueSettings, baseMs: settings.retryBaseMs, giveUpAfterMs: settings.giveUpAfterMs },
  });
  const digestChannels = new Map<string, number>();
  for (const channel of settings.channels) if (channel.digestAtMinute !== undefined) digestChannels.set(channel.name, channel.digestAtMinute);
  const digests = await DigestBook.open(documents, { ...deps, channels: digestChannels, enqueue: (channel, digest) => queue.enqueue([channel], digest) });
  return {
    queue,
    digests,
    notify: (notice) => {
      const channels = settings.channels.filter((channel) => channel.events.includes(notice.event)).map((channel) => channel.name);
      const now = channels.filter((channel) => !digestChannels.has(channel));
      for (const channel of channels) if (digestChannels.has(channel)) digests.add(channel, notice);
      if (now.length > 0) void queue.enqueue(now, notice);
    },
    start() {
      queue.start();
      digests.start();
    },
    async stop() {
      await digests.stop();
      await queue.stop();
    },
  };
}
