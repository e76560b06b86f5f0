// Node opens its inspector on 127.0.0.1:9229 when the process receives SIGUSR1, unless JavaScript
// listens for that signal: any local user allowed to signal the service (the same uid, or root's
// tools) could then attach a debugger and run code as the service. Every binary
// listens and does nothing: there is no log file to reopen (logs go to the console and the ring), and
// a debugger, when wanted, is asked for at start with --inspect.
let installed = false;

/** Makes SIGUSR1 do nothing in this process (worker threads share it: one listener covers them). */
export function ignoreDebuggerSignal(): void {
  if (installed) return;
  installed = true;
  process.on('SIGUSR1', () => {});
}
