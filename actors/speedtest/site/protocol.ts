// netspeed's site: its config and the shapes of its API, which the page and the client read too.
import type { ActorRef } from '../../../src/actor/kind.js';
import type { ResultsApi } from '../results/protocol.js';

export interface SpeedtestSite {
  /** The display name shown on the page and in /api/info. */
  name: string;
  /** Seconds each phase of the browser test lasts. */
  testDurationSeconds: number;
  /** Largest download, in bytes (decimal megabytes: 100 MB is 100,000,000 bytes). */
  maxDownloadBytes: number;
  /** Largest upload body, in bytes. */
  maxUploadBytes: number;
  /** Log one line per request. */
  logRequests: boolean;
  /** The results actor, when the server keeps results. */
  results?: ActorRef<ResultsApi>;
}

/** GET /api/ping */
export interface PingResult {
  /** Seconds since the epoch, fractional. */
  timestamp: number;
}

/** POST /api/upload: what the server received, counted where it landed. */
export interface UploadResult {
  /** Bytes received. */
  size: number;
  /** Seconds from the request's arrival to its last byte. */
  duration: number;
  /** When the last byte arrived: seconds since the epoch, fractional. */
  timestamp: number;
  /** When the bytes landed: `[seconds since the request's arrival, bytes by then]`, a point a millisecond at most. */
  landed: [number, number][];
}

/** GET /api/info */
export interface SpeedtestInfo {
  version: string;
  /** Always `netspeed`: how a client tells a netspeed server from anything else. */
  server: 'netspeed';
  name: string;
  test_duration: number;
  /** Largest download and upload, in bytes. */
  max_download_bytes: number;
  max_upload_bytes: number;
  /** Whether the server keeps results (POST /api/results); netspeed's own extra. */
  results: boolean;
}

/** The api_version of GET /api/version (src/http/version-route.ts): raised on an incompatible change of this API. */
export const speedtestApiVersion = 1;
