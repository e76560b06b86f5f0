// The per-thread series of a Prometheus text exposition: the value of one metric for each `thread`
// label, as the soak reads heap and handles of every thread from a front's /metrics.

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** `name`'s value by thread label; a sample without one is left out. */
export function valuesByThread(text: string, name: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = sampleLine.exec(line);
    if (match?.[1] !== name) continue;
    const thread = [...(match[2] ?? '').matchAll(labelPair)].find((pair) => pair[1] === 'thread')?.[2];
    if (thread !== undefined) values.set(thread, (values.get(thread) ?? 0) + Number(match[3]));
  }
  return values;
}
