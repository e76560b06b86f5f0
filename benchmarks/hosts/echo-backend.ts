// The backend of the proxy soak: plain HTTP/1.1 on loopback answering `ok` to a GET, and to a POST once
// its body is read, and echoing every WebSocket message on /echo.
import { App, us_socket_local_port } from 'uWebSockets.js';

const app = App()
  .ws('/echo', { message: (socket, message, isBinary) => void socket.send(message, isBinary) })
  .get('/*', (res) => void res.end('ok'))
  .post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    res.onData((_chunk, isLast) => {
      if (isLast && !aborted) res.cork(() => res.end('ok'));
    });
  });
app.listen('127.0.0.1', 0, (socket) => {
  if (socket === false) {
    process.stderr.write('echo-backend: cannot listen\n');
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify({ urls: [`http://127.0.0.1:${us_socket_local_port(socket)}/`], startupMs: 0 })}\n`);
});
process.on('SIGTERM', () => {
  app.close();
  process.exit(0);
});
