// Active health checks of one backend: every interval, a GET of the check's path on a connection of
// its own (the route's TLS settings for an https:// backend). A status from 200 to 399 passes;
// anything else, an error or no answer within the timeout fails. `healthyThreshold` passes in a row
// bring a backend marked down back; `unhealthyThreshold` failures in a row mark it down. A backend
// starts as up, so a route serves from its first request.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Member } from './upstream.js';
import type { UpstreamSettings } from './protocol.js';

type Settings = NonNullable<UpstreamSettings['healthCheck']>;

export class HealthCheck {
  private timer: NodeJS.Timeout;
  private passes = 0;
  private failures = 0;
  private up = true;
  private stopped = false;

  constructor(
    private readonly member: Member,
    private readonly settings: Settings,
    private readonly tls: UpstreamSettings['tls'],
    /** Called when the verdict changes, with why. */
    private readonly changed: (up: boolean, reason: string) => void,
  ) {
    this.timer = setInterval(() => void this.check(), settings.intervalMs);
    // A check must not keep a stopping thread alive.
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.timer);
  }

  private async check(): Promise<void> {
    const problem = await this.probe();
    if (this.stopped) return;
    if (problem === undefined) {
      this.failures = 0;
      if (!this.up && ++this.passes >= this.settings.healthyThreshold) {
        this.up = true;
        this.changed(true, `${this.settings.healthyThreshold} checks passed`);
      }
      return;
    }
    this.passes = 0;
    if (this.up && ++this.failures >= this.settings.unhealthyThreshold) {
      this.up = false;
      this.changed(false, problem);
    }
  }

  /** Why the check failed, or undefined when it passed. */
  private probe(): Promise<string | undefined> {
    const { target } = this.member;
    const https = target.scheme === 'https';
    return new Promise((resolve) => {
      const options = {
        host: target.host,
        port: target.port,
        path: this.settings.path,
        method: 'GET',
        agent: false as const,
        timeout: this.settings.timeoutMs,
        headers: { 'user-agent': 'certhub-agent-health-check', connection: 'close' },
        ...(https
          ? {
              ...(this.tls.ca === undefined ? {} : { ca: this.tls.ca }),
              ...(this.tls.servername === undefined ? {} : { servername: this.tls.servername }),
              rejectUnauthorized: this.tls.verify,
            }
          : {}),
      };
      const request = (https ? httpsRequest : httpRequest)(options, (response) => {
        const status = response.statusCode ?? 0;
        response.resume();
        resolve(status >= 200 && status < 400 ? undefined : `${this.settings.path} answered ${status}`);
      });
      request.on('timeout', () => request.destroy(new Error(`no answer within ${this.settings.timeoutMs} ms`)));
      request.on('error', (error) => resolve(`${this.settings.path}: ${error.message}`));
      request.end();
    });
  }
}
