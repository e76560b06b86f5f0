// Whether the page is hearing from the server: the pill in the top bar, the body's data-connection
// (the stylesheet dims stale figures by it) and, after a failed poll, the "not reachable" notice
// that says why and how old the figures still on screen are.
import { byId } from '../../../ui/common/dom.js';
import { formatUtc } from './format.js';

export type ConnectionState = 'connecting' | 'live' | 'unreachable';

const labels: Record<ConnectionState, string> = { connecting: 'connecting…', live: 'live', unreachable: 'not reachable' };

export class ConnectionView {
  private readonly label = byId('connection-label');
  private readonly updated = byId<HTMLTimeElement>('updated');
  private readonly error = byId('status-error');
  private readonly errorDetail = byId('status-error-detail');
  private lastSuccess: Date | undefined;

  live(at: Date): void {
    this.lastSuccess = at;
    this.enter('live');
    this.error.hidden = true;
    this.updated.textContent = `updated ${clock(at)}`;
    this.updated.dateTime = at.toISOString();
    this.updated.title = formatUtc(at);
  }

  failed(error: Error, retryMs: number): void {
    this.enter('unreachable');
    const since = this.lastSuccess === undefined ? 'No figures yet.' : `The figures below are from ${clock(this.lastSuccess)}.`;
    this.errorDetail.textContent = `${capitalise(error.message)}. Trying again every ${retryMs / 1000} s. ${since}`;
    this.error.hidden = false;
  }

  private enter(state: ConnectionState): void {
    document.body.dataset.connection = state;
    this.label.textContent = labels[state];
  }
}

/** Local wall-clock `HH:MM:SS`, what someone watching the page compares with their own clock. */
function clock(time: Date): string {
  return [time.getHours(), time.getMinutes(), time.getSeconds()].map((part) => String(part).padStart(2, '0')).join(':');
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
