// Notices to channels: each notice is queued (queue.ts) once for every channel subscribed to its event.
import type { Clock } from '../../../src/actor/clock.js';
import type { Logger } from '../../../src/log/record.js';
import type { Notify } from '../domains/notices.js';
import { senderOf } from './channels.js';
import type { NotifySettings } from './protocol.js';
import { DeliveryQueue, defaultQueueSettings } from './queue.js';

export interface Notifier {
  notify: Notify;
  queue: DeliveryQueue;
}

export async function openNotifier(dataDir: string, settings: NotifySettings, deps: { clock: Clock; log: Logger }): Promise<Notifier> {
  const queue = await DeliveryQueue.open(dataDir, {
    ...deps,
    senders: settings.channels.map((channel) => senderOf(channel, deps.clock)),
    settings: { ...defaultQueueSettings, baseMs: settings.retryBaseMs, giveUpAfterMs: settings.giveUpAfterMs },
  });
  return {
    queue,
    notify: (notice) => {
      const channels = settings.channels.filter((channel) => channel.events.includes(notice.event)).map((channel) => channel.name);
      if (channels.length > 0) queue.enqueue(channels, notice);
    },
  };
}
