// An admin event stream (Server-Sent Events) that survives the session ending: the browser retries
// a dropped connection by itself, but gives up on a refused one (401), so then the page asks whether
// the session is gone, waits for the login, and opens the stream again.
import { call, sessionAlive } from './api.js';

export type Handlers = Record<string, (data: string) => void>;

/** Seconds before asking again when the server itself is unreachable. */
const retryMs = 3000;

export function openStream(url: string, handlers: Handlers, onOpen: () => void = () => {}): void {
  const source = new EventSource(url);
  source.addEventListener('open', onOpen);
  for (const [event, handle] of Object.entries(handlers)) source.addEventListener(event, (message) => handle((message as MessageEvent<string>).data));
  source.addEventListener('error', () => {
    if (source.readyState !== EventSource.CLOSED) return;
    const reopen = () => openStream(url, handlers, onOpen);
    sessionAlive().then(
      (alive) => {
        // A 401 here opens the login (api.ts); once it succeeds the stream starts over.
        if (alive) setTimeout(reopen, retryMs);
        else void call('api/admin/prefs').then(reopen, () => setTimeout(reopen, retryMs));
      },
      () => setTimeout(reopen, retryMs),
    );
  });
}
