// Small DOM helpers for every page. Text always goes in through textContent, so data from a server
// (process names, command lines, a server's display name) can never become markup.

export function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className !== undefined && className !== '') node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The element with this id (HTML or SVG); the page's markup is fixed, so a missing one is a bug worth failing on. */
export function byId<T extends Element = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`index.html has no #${id}`);
  return node as unknown as T;
}
