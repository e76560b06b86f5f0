// The netspeed benchmark's baseline: a plain node:http server streaming one random buffer, as a
// straightforward Node implementation of /api/download would.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

const pool = randomBytes(4 * 1024 * 1024);
const server = createServer((request, response) => {
  const size = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('size') ?? 0);
  response.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(size), 'Cache-Control': 'no-store' });
  let sent = 0;
  const write = () => {
    while (sent < size) {
      const length = Math.min(pool.length, size - sent);
      sent += length;
      if (!response.write(pool.subarray(0, length))) {
        response.once('drain', write);
        return;
      }
    }
    response.end();
  };
  write();
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`http://127.0.0.1:${port}/\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
