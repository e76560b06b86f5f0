// Rows for the page's tables. Text always goes in through textContent (ui/common/dom.ts), so data from
// the machine (process names, command lines) can never become markup.
import { element } from '../../../ui/common/dom.js';

/** A table row whose cells are elements or plain text. */
export function tableRow(cells: readonly (Node | string)[], classNames: readonly string[] = []): HTMLTableRowElement {
  const row = element('tr');
  cells.forEach((content, index) => {
    const cell = element('td', classNames[index]);
    cell.append(content);
    row.append(cell);
  });
  return row;
}

/** Shows `rows` in `body`, or one full-width row with `emptyText` when there are none. */
export function fillTableBody(body: HTMLTableSectionElement, rows: readonly HTMLTableRowElement[], emptyText: string): void {
  if (rows.length > 0) {
    body.replaceChildren(...rows);
    return;
  }
  const cell = element('td', 'empty', emptyText);
  cell.colSpan = body.closest('table')?.tHead?.rows[0]?.cells.length ?? 1;
  const row = element('tr');
  row.append(cell);
  body.replaceChildren(row);
}
