// Reading a Prometheus text exposition in tests.

/** The value of the first sample of `name` whose labels include `labels`. */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labelText = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) return Number(match[3]);
  }
  return undefined;
}
