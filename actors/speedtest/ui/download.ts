// Download: parallel streams of incompressible bytes, counted as they arrive, until the phase is over.
import type { SpeedtestInfo } from '../browser.js';
import { freshApiUrl, refusalOf } from './api.js';
import { ByteWindows } from './byte-windows.js';
import { downloadRequestBytes, warmupMs, windowMs } from './method.js';
import { keepStreamsBusy } from './streams.js';

/** Downloads until `phase` aborts (at `phaseMs`); reports the live rate every window; returns bits per second. */
export async function measureDownload(info: SpeedtestInfo, phase: AbortController, phaseMs: number, onLive: (bitsPerSecond: number) => void): Promise<number> {
  const counted = new ByteWindows(performance.now(), phaseMs);
  const size = downloadRequestBytes(info.max_download_bytes);
  const ticker = setInterval(() => onLive(counted.liveBitsPerSecond()), windowMs);
  try {
    await keepStreamsBusy(phase, async (_stream, signal) => {
      const response = await fetch(freshApiUrl('download', { size }), { cache: 'no-store', signal });
      if (!response.ok) throw await refusalOf('download', response);
      if (response.body === null) throw new Error('the answer to /api/download has no body');
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        counted.add(value.byteLength);
      }
    });
  } finally {
    clearInterval(ticker);
  }
  return counted.steadyBitsPerSecond(warmupMs(phaseMs));
}
