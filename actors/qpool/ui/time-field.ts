// A <time> that shows how long ago something was and keeps the exact UTC time in its title and
// datetime attribute; ages are redrawn on every poll, so "just now" does not stay "just now".
import { formatAge, formatUtc } from './format.js';

export function showTime(node: HTMLTimeElement, iso: string | undefined, absent: string, nowMs: number): void {
  const time = iso === undefined ? undefined : new Date(iso);
  if (time === undefined || Number.isNaN(time.getTime())) {
    // An unparseable time is shown as the server sent it rather than hidden.
    node.textContent = iso ?? absent;
    node.removeAttribute('datetime');
    node.removeAttribute('title');
    return;
  }
  node.textContent = formatAge(time.getTime(), nowMs);
  node.dateTime = time.toISOString();
  node.title = formatUtc(time);
}
