// Text always goes in through textContent, so nothing from the server (its display name) can become markup.

/** The element with this id; the page's markup is fixed, so a missing one is a bug worth failing on. */
export function byId<T extends Element = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`index.html has no #${id}`);
  return node as unknown as T;
}
