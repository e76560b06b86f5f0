import test from 'ava';
import { jitter, median } from '../../../actors/speedtest/client/statistics.js';
import { compactLine, jsonReport, progressBar } from '../../../actors/speedtest/client/report.js';
import { apiUrl, serverAddress } from '../../../actors/speedtest/client/server-url.js';

test('ping statistics: median and jitter', (t) => {
  t.is(median([3, 1, 2]), 2);
  t.is(median([4, 1, 2, 3]), 2.5);
  t.is(jitter([1, 3, 2, 2]), 1);
  t.is(jitter([5]), 0);
});

test('server addresses: no scheme means http://, no port means 8080, shown as given', (t) => {
  t.like(serverAddress('127.0.0.1:8080'), { shown: 'http://127.0.0.1:8080' });
  t.is(serverAddress('127.0.0.1:8080').url.href, 'http://127.0.0.1:8080/');
  t.like(serverAddress('http://127.0.0.1:8080/'), { shown: 'http://127.0.0.1:8080/' });
  const bare = serverAddress('myhost');
  t.is(bare.url.port, '8080', "the server's default port, not 80");
  t.is(bare.shown, 'http://myhost:8080');
  t.is(serverAddress('myhost/speed').url.href, 'http://myhost:8080/speed');
  t.is(serverAddress('myhost:80').url.href, 'http://myhost/', 'a port given is kept');
  t.is(serverAddress('http://myhost').url.href, 'http://myhost/', 'a URL means what URLs mean');
  t.is(serverAddress('https://myhost').url.port, '');
  t.is(serverAddress('[::1]').url.href, 'http://[::1]:8080/');
  t.is(apiUrl(serverAddress('http://h/speed/').url, '/api/ping').href, 'http://h/speed/api/ping');
  t.is(apiUrl(serverAddress('[::1]:9000').url, '/api/info').href, 'http://[::1]:9000/api/info');
  t.throws(() => serverAddress('http://'), { message: /is not a server address/ });
  t.throws(() => serverAddress('ftp://h'), { message: /only http:\/\/ and https:\/\/ servers are supported/ });
});

test('the compact line and JSON forms', (t) => {
  const outcome = {
    server: 'http://h/',
    serverName: 'h',
    pingRtts: [1.04, 1.26],
    pingsSent: 3,
    pingsLost: 1,
    download: { bytes: 25_000_000, seconds: 2, bitsPerSecond: 95_712_345.6 },
    upload: { bytes: 10_000_000, seconds: 1, bitsPerSecond: 80_000_000 },
    loadedDownloadRtts: [5, 7, 9],
    loadedUploadRtts: [],
  };
  t.is(compactLine(outcome), 'ping 1.1 ms / down 95.71 Mbps / up 80.00 Mbps');
  t.like(jsonReport(outcome), {
    ping_ms: 1.15,
    ping: '1.1 ms',
    download_bps: 95_712_346,
    download: '95.71 Mbps',
    upload: '80.00 Mbps',
    download_loaded_latency_ms: 7,
    upload_loaded_latency_ms: null,
    jitter_ms: 0.22,
    loss_percent: 33.3,
    grades: { streaming: 'poor', gaming: 'poor', calls: 'poor' },
  });
  t.is(progressBar(0.5, 1e8, 10), '[█████░░░░░]  50%  100.00 Mbps');
  t.is(progressBar(0.1, undefined, 10), '[█░░░░░░░░░]  10%  …           ', 'no figure before the interim window has passed');
});
