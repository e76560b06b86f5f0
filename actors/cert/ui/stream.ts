// An admin event stream (Server-Sent Events) that survives an outage and the session ending. The page
// reconnects it itself rather than leaving that to the browser (which retries a dropped connection
// quietly and gives up on a refused one): a drop first asks whether certhub answers and the session
// holds (api.ts sessionBack: the banner while it is down, the login if a restart or an expiry ended
// the session), then opens the stream again, which starts with a fresh snapshot or backlog.
import { sessionBack } from './api.js';

export type Handlers = Record<string, (data: string) => void>;

/** A stream that drops sooner than this after opening is opened again only after this pause, so a server that keeps closing it is not asked in a loop. */
const steadyMs = 3000;

export function openStream(url: string, handlers: Handlers, onOpen: () => void = () => {}): void {
  const source = new EventSource(url);
  let openedAt: number | undefined;
  source.addEventListener('open', () => {
    openedAt = Date.now();
    onOpen();
  });
  for (const [event, handle] of Object.entries(handlers)) source.addEventListener(event, (message) => handle((message as MessageEvent<string>).data));
  source.addEventListener('error', () => {
    source.close();
    const pause = openedAt !== undefined && Date.now() - openedAt >= steadyMs ? 0 : steadyMs;
    void sessionBack().then(() => setTimeout(() => openStream(url, handlers, onOpen), pause));
  });
}
