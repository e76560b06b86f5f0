// Each value answer spends a value, and a GET is what an `<img>` tag on any web page sends: a page
// of another site must not drain a pool served on the user's loopback. Browsers mark such a request
// `Sec-Fetch-Site: cross-site`; the value routes refuse it, and take nothing from the pool.
import { randomBytes } from 'node:crypto';
import { get } from 'node:http';
import test from 'ava';
import { DiodeDouble } from '../../helpers/diode-double.js';
import { freeListen, poolStatus, startServe, tempDir, valueLines, waitForStatus, writeConfig } from '../../helpers/qpool.js';

function getWith(url: string, headers: Record<string, string>): Promise<{ status: number; type: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { headers }, (response) => {
      let body = '';
      response.setEncoding('latin1').on('data', (text: string) => (body += text));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body }));
    });
    request.on('error', reject);
  });
}

test('the value routes refuse a cross-site browser request with 403 and take nothing; same-site, same-origin, none and no header are served', async (t) => {
  const double = await DiodeDouble.create(t);
  t.teardown(() => double.cleanup());
  const dir = await tempDir(t);
  const config = await writeConfig(dir, { server: { listen: await freeListen(), receive_command: double.receiveCommand('auto-stream-recv') } });
  const serve = await startServe(t, config, double.env);
  const values = Array.from({ length: 4 }, () => randomBytes(128).toString('hex'));
  double.enqueue(valueLines(values));
  await waitForStatus(serve.url, (status) => status.available === values.length);

  for (const path of ['api/random', 'api/random/hex', 'api/random/base64', 'api/random/binary']) {
    const refused = await getWith(`${serve.url}${path}`, { 'Sec-Fetch-Site': 'cross-site', 'Sec-Fetch-Dest': 'image' });
    t.is(refused.status, 403, `${path}: ${refused.body}`);
    t.regex(refused.type ?? '', /^application\/json/);
    t.regex((JSON.parse(refused.body) as { error: string }).error, /cross-site request refused/);
  }
  t.is((await poolStatus(serve.url)).available, values.length);

  const served: string[] = [];
  const passing: Record<string, string>[] = [{ 'Sec-Fetch-Site': 'same-site' }, { 'Sec-Fetch-Site': 'same-origin' }, { 'Sec-Fetch-Site': 'none' }, {}];
  for (const headers of passing) {
    const answer = await getWith(`${serve.url}api/random/hex`, headers);
    t.is(answer.status, 200, `${JSON.stringify(headers)}: ${answer.body}`);
    served.push(answer.body.trim());
  }
  t.deepEqual([...served].sort(), [...values].sort());
});
