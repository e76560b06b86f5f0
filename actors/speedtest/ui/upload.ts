// Upload: parallel streams posting one body of random bytes again and again until the phase is over.
// XMLHttpRequest rather than fetch, because only it reports upload progress, which drives the live
// figure; the result comes from the server's own count where it covers enough of the phase.
import type { SpeedtestInfo, UploadResult } from '../browser.js';
import { freshApiUrl, refusal } from './api.js';
import { ByteWindows } from './byte-windows.js';
import { landedBitsPerSecond, type LandedUpload } from './landed-rate.js';
import { streamCount, uploadBodyBytes, warmupMs, windowMs } from './method.js';
import { keepStreamsBusy } from './streams.js';

export interface UploadMeasurement {
  bitsPerSecond: number;
  /** `server`: bytes counted where they landed; `browser`: bytes handed to the network, from progress events. */
  countedBy: 'server' | 'browser';
}

// crypto.getRandomValues fills at most 64 KiB a call.
const randomChunkBytes = 65_536;
let randomBody: Blob | undefined;

/** Incompressible bytes, made once per page: a Blob is sent with its Content-Length, never chunked. */
function uploadBody(size: number): Blob {
  if (randomBody?.size !== size) {
    const bytes = new Uint8Array(size);
    for (let offset = 0; offset < size; offset += randomChunkBytes) crypto.getRandomValues(bytes.subarray(offset, offset + randomChunkBytes));
    randomBody = new Blob([bytes], { type: 'application/octet-stream' });
  }
  return randomBody;
}

/** Uploads until `phase` aborts (at `phaseMs`); reports the live rate every window. */
export async function measureUpload(
  info: SpeedtestInfo,
  phase: AbortController,
  phaseMs: number,
  onLive: (bitsPerSecond: number) => void,
): Promise<UploadMeasurement> {
  const payload = uploadBody(uploadBodyBytes(info.max_upload_bytes));
  const sent = new ByteWindows(performance.now(), phaseMs);
  const landed: LandedUpload[] = [];
  const ticker = setInterval(() => onLive(sent.liveBitsPerSecond()), windowMs);
  try {
    await keepStreamsBusy(phase, async (stream, signal) => {
      landed.push({ stream, result: await post(payload, signal, (bytes) => sent.add(bytes)) });
    });
  } finally {
    clearInterval(ticker);
  }
  const warmup = warmupMs(phaseMs);
  // A quarter of the phase is enough for a figure once every stream is in it (they start up to a second
  // apart, which in a short phase leaves little more).
  const byServer = landedBitsPerSecond(landed, streamCount, warmup / 1000, phaseMs / 4000);
  if (byServer !== undefined) return { bitsPerSecond: byServer, countedBy: 'server' };
  return { bitsPerSecond: sent.steadyBitsPerSecond(warmup), countedBy: 'browser' };
}

function post(payload: Blob, signal: AbortSignal, onSent: (bytes: number) => void): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    const abort = () => request.abort();
    let reported = 0;
    request.upload.addEventListener('progress', (event) => {
      onSent(event.loaded - reported);
      reported = event.loaded;
    });
    request.addEventListener('loadend', () => {
      signal.removeEventListener('abort', abort);
      const answer: unknown = request.response;
      if (request.status === 200 && answer !== null) resolve(answer as UploadResult);
      else if (signal.aborted) reject(new DOMException('the phase is over', 'AbortError'));
      else if (request.status === 0) reject(new Error('the upload failed: no answer from the server'));
      else reject(refusal('upload', request.status, answer));
    });
    signal.addEventListener('abort', abort, { once: true });
    request.open('POST', freshApiUrl('upload'));
    request.responseType = 'json';
    request.send(payload);
  });
}
