// The cold-start anchor: the least a Node process does to listen on HTTP.
import { createServer } from 'node:http';

const startedAt = performance.now();
const server = createServer((_request, response) => response.end('ok'));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  process.stdout.write(`${JSON.stringify({ urls: [`http://127.0.0.1:${port}/`], startupMs: Math.round(performance.now() - startedAt) })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
