// A list whose items keep their elements from one snapshot to the next, found by key: a bar keeps
// its element, so it slides to its new width (meter.css) instead of being drawn anew at each event.

export class KeyedList<Item, View extends { root: HTMLElement }> {
  private views = new Map<string, View>();

  constructor(
    private readonly list: HTMLElement,
    private readonly parts: { key: (item: Item) => string; create: () => View; update: (view: View, item: Item) => void },
  ) {}

  show(items: readonly Item[]): void {
    const views = new Map<string, View>();
    for (const item of items) {
      const key = this.parts.key(item);
      const view = this.views.get(key) ?? this.parts.create();
      view.root.dataset.key = key;
      this.parts.update(view, item);
      views.set(key, view);
    }
    this.views = views;
    this.list.replaceChildren(...[...views.values()].map((view) => view.root));
  }
}
