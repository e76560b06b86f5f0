// What the speed test page's browser files share: the real netspeed server started with short phases
// and a name with markup in it, the two screens, and waiting for the page's phase.
import type { ExecutionContext } from 'ava';
import type { BrowserContextOptions, Page } from 'playwright-core';
import type { SpeedtestInfo } from '../../../actors/speedtest/site/protocol.js';
import { startNetspeedServer } from '../../helpers/netspeed.js';

/** The shortest phases the tests ask of the server; the whole-test run lengthens them on a slow machine. */
export const phaseSeconds = 2;
/** Markup in the name must come out as text. */
export const serverName = 'Rack 7 <lab>';
export const desktop: BrowserContextOptions = { viewport: { width: 1280, height: 900 } };
export const phone: BrowserContextOptions = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };

/** Starts the real netspeed server on a free loopback port with short phases; returns its URL and /api/info. */
export async function startNetspeed(t: ExecutionContext, seconds = phaseSeconds): Promise<{ url: string; info: SpeedtestInfo }> {
  const { url } = await startNetspeedServer(t, ['-H', '127.0.0.1', '-p', '0', '-d', String(seconds), '-q', '-n', serverName]);
  const response = await fetch(`${url}api/info`);
  t.is(response.status, 200);
  return { url, info: (await response.json()) as SpeedtestInfo };
}

export async function waitForPhase(page: Page, phase: string, timeout = 15_000): Promise<void> {
  await page.locator(`body[data-phase="${phase}"]`).waitFor({ state: 'attached', timeout });
}
