// Small DOM helpers. Text always goes in through textContent, so data from the machine (process
// names, command lines) can never become markup.

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined && className !== '') node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element with this id; the page's markup is fixed, so a missing one is a bug worth failing on. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`index.html has no #${id}`);
  return node as T;
}

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
