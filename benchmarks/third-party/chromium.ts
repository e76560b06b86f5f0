// Headless Chromium as the benchmarks and the browser tests launch it: Debian's own build, driven by
// playwright-core, so nothing is downloaded.
export const chromiumPath = '/usr/bin/chromium';
// Quiet and self-contained: no sandbox (tests may run as root in a container), no GPU, and none of
// the background traffic (updates, sync, first-run pages) a desktop profile would start.
export const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
