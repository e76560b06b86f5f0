import test from 'ava';
import { goodputBitsPerSecond, jitter, median } from '../../src/clients/netspeed/statistics.js';
import { compactLine, jsonReport, progressBar } from '../../src/clients/netspeed/report.js';
import { apiUrl, serverUrl } from '../../src/clients/netspeed/server-url.js';

test('goodput leaves out a lumpy first second', (t) => {
  // 1 MB/s steady, but the first second delivers in one late lump.
  const samples = [{ at: 900, total: 1_000_000 }];
  for (let at = 1000; at <= 5000; at += 100) samples.push({ at, total: 1_000_000 + ((at - 1000) / 1000) * 1_000_000 });
  t.is(Math.round(goodputBitsPerSecond(samples, 0)), 8_000_000);
  t.is(goodputBitsPerSecond([], 0), 0);
  t.is(goodputBitsPerSecond([{ at: 20, total: 25_000_000 }], 0), 25_000_000 * 8 * 50, 'a single sample: the whole transfer');
  t.is(goodputBitsPerSecond([{ at: 10, total: 1_000_000 }, { at: 20, total: 11_000_000 }], 0), 10_000_000 * 8 * 100, 'a short transfer from its first byte');
});

test('ping statistics: median and jitter', (t) => {
  t.is(median([3, 1, 2]), 2);
  t.is(median([4, 1, 2, 3]), 2.5);
  t.is(jitter([1, 3, 2, 2]), 1);
  t.is(jitter([5]), 0);
});

test('server addresses: no scheme means http://, paths kept', (t) => {
  t.is(serverUrl('speed.example:8080').href, 'http://speed.example:8080/');
  t.is(apiUrl(serverUrl('http://h/speed/'), '/api/ping').href, 'http://h/speed/api/ping');
  t.is(apiUrl(serverUrl('[::1]:9000'), '/api/info').href, 'http://[::1]:9000/api/info');
  t.throws(() => serverUrl('http://'), { message: /is not a server address/ });
});

test('the compact line and JSON forms', (t) => {
  const outcome = {
    server: 'http://h/',
    serverName: 'h',
    pingRtts: [1.04, 1.26],
    download: { bytes: 25_000_000, seconds: 2, bitsPerSecond: 95_712_345.6 },
    upload: { bytes: 10_000_000, seconds: 1, bitsPerSecond: 80_000_000 },
    loadedDownloadRtts: [5, 7, 9],
    loadedUploadRtts: [],
  };
  t.is(compactLine(outcome), 'ping 1.1 ms / down 95.71 Mbps / up 80.00 Mbps');
  t.like(jsonReport(outcome), { ping_ms: 1.15, ping: '1.1 ms', download_bps: 95_712_346, download: '95.71 Mbps', upload: '80.00 Mbps', download_loaded_latency_ms: 7, upload_loaded_latency_ms: null, jitter_ms: 0.22 });
  t.is(progressBar(0.5, 1e8, 10), '[█████░░░░░]  50%  100.00 Mbps');
});
