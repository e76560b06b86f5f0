// The backend of the agent-proxy benchmark: plain HTTP/1.1 on loopback answering `ok` to everything
// (uWS, so that the backend is not what limits either proxy in front of it).
import { App, us_socket_local_port } from 'uWebSockets.js';

const startedAt = performance.now();
const app = App().any('/*', (res) => void res.end('ok'));
app.listen('127.0.0.1', 0, (socket) => {
  if (socket === false) {
    process.stderr.write('ok-backend: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ urls: [`http://127.0.0.1:${us_socket_local_port(socket)}/`], startupMs: Math.round(performance.now() - startedAt) })}\n`);
});
process.on('SIGTERM', () => {
  app.close();
  process.exit(0);
});
