// The live feed: one EventSource on /api/stream. EventSource reconnects by itself after a network
// error; it gives up only when the server answers with something that is not an event stream (a
// proxy's error page, a restart in progress), and then this opens a fresh one after a pause.
import type { Snapshot } from '../browser.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting';

export interface StreamHandlers {
  snapshot(snapshot: Snapshot): void;
  state(state: ConnectionState): void;
}

const reopenDelayMs = 5000;

export function followStream(url: string, handlers: StreamHandlers): void {
  handlers.state('connecting');
  open(url, handlers);
}

function open(url: string, handlers: StreamHandlers): void {
  const source = new EventSource(url);
  source.addEventListener('snapshot', (event: MessageEvent<string>) => {
    handlers.state('live');
    handlers.snapshot(JSON.parse(event.data) as Snapshot);
  });
  source.addEventListener('error', () => {
    handlers.state('reconnecting');
    if (source.readyState === EventSource.CLOSED) setTimeout(() => open(url, handlers), reopenDelayMs);
  });
}
