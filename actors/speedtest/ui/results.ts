// Saved results as the page uses them, when the server keeps them: the Save button after a test, the
// link to the saved result's page, and the list of the server's latest results.
import type { ResultInput, SavedAnswer, SavedResult, SpeedtestInfo } from '../browser.js';
import { byId } from '../../../ui/common/dom.js';
import { freshApiUrl, refusalOf } from './api.js';
import { formatMbps, formatMs } from './format.js';

/** Results the page lists. */
const historyLength = 10;

export class SavedResults {
  private readonly saveButton = byId<HTMLButtonElement>('save-result');
  private readonly savedLink = byId('saved-link');
  private readonly history = byId('history');
  private readonly rows = byId('history-rows');
  private readonly empty = byId('history-empty');
  private pending: ResultInput | undefined;

  constructor() {
    this.saveButton.addEventListener('click', () => void this.save());
  }

  /** Shows the list when the server keeps results. */
  async load(info: SpeedtestInfo): Promise<void> {
    if (!info.results) return;
    this.history.hidden = false;
    await this.refresh();
  }

  /** A test finished: it may be saved. */
  offer(info: SpeedtestInfo, input: ResultInput): void {
    this.pending = input;
    this.saveButton.hidden = !info.results;
    this.saveButton.disabled = false;
    this.saveButton.textContent = 'Save result';
    this.savedLink.hidden = true;
  }

  private async save(): Promise<void> {
    if (this.pending === undefined) return;
    this.saveButton.disabled = true;
    this.saveButton.textContent = 'Saving…';
    try {
      const response = await fetch(new URL('api/results', document.baseURI), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(this.pending),
      });
      if (response.status !== 201) throw await refusalOf('results', response);
      const answer = (await response.json()) as SavedAnswer;
      this.pending = undefined;
      this.saveButton.textContent = 'Saved';
      const link = document.createElement('a');
      link.href = new URL(answer.page, document.baseURI).href;
      link.textContent = link.href;
      link.id = 'saved-result-link';
      this.savedLink.replaceChildren('Saved at ', link);
      this.savedLink.hidden = false;
      await this.refresh();
    } catch (error) {
      this.saveButton.disabled = false;
      this.saveButton.textContent = 'Save result';
      this.savedLink.textContent = `Not saved: ${error instanceof Error ? error.message : String(error)}`;
      this.savedLink.hidden = false;
    }
  }

  private async refresh(): Promise<void> {
    const response = await fetch(freshApiUrl('results', { limit: historyLength }), { cache: 'no-store' });
    if (!response.ok) throw await refusalOf('results', response);
    const { results } = (await response.json()) as { results: SavedResult[] };
    this.rows.replaceChildren(...results.map(historyRow));
    this.empty.hidden = results.length > 0;
  }
}

function historyRow(result: SavedResult): HTMLTableRowElement {
  const row = document.createElement('tr');
  const saved = document.createElement('a');
  saved.href = new URL(`r/${result.id}`, document.baseURI).href;
  saved.textContent = new Date(result.at).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });
  const cells = [saved, formatMbps(result.download_bps), formatMbps(result.upload_bps), formatMs(result.ping_ms), `${result.loss_percent.toFixed(1)} %`];
  for (const content of cells) {
    const cell = document.createElement('td');
    cell.append(content);
    row.append(cell);
  }
  return row;
}
