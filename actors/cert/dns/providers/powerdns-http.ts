// One PowerDNS API request: the key sent, the expected status checked, a refusal explained in words
// that name the setting to check, the answer parsed as JSON.
import { OutpostError } from '../../../../src/errors.js';
import { excerpt, providerFetch, type ProviderResponse } from './http.js';
import { certErrors } from '../../error-codes.js';

/** A failure answered by the API, with its HTTP status (422: the change itself was refused). */
class PowerDnsRefusal extends OutpostError {
  constructor(
    message: string,
    readonly httpStatus: number,
  ) {
    super(certErrors.ERR_DNS_PROVIDER, message);
  }
}

/** Whether the API refused the change itself (422), as opposed to a failure that would refuse any change. */
export function isChangeRefusal(error: unknown): boolean {
  return error instanceof PowerDnsRefusal && error.httpStatus === 422;
}

export interface PowerDnsHttpSettings {
  /** As configured (`server_url`), for the messages. */
  serverUrl: string;
  apiToken: string;
  /** The zone with no trailing dot, for the messages. */
  zone: string;
  timeoutMs: number;
}

export class PowerDnsHttp {
  private readonly headers: Record<string, string>;

  constructor(private readonly settings: PowerDnsHttpSettings) {
    this.headers = { 'X-API-Key': settings.apiToken };
  }

  async request(url: string, method: 'GET' | 'PATCH' | 'PUT', expected: number, json?: unknown): Promise<ProviderResponse> {
    const response = await providerFetch('powerdns', url, { method, headers: this.headers, ...(json === undefined ? {} : { json }) }, this.settings.timeoutMs);
    if (response.status === expected) return response;
    throw new PowerDnsRefusal(this.failure(response), response.status);
  }

  /** GET `url` and its answer's JSON. */
  async read<T>(url: string): Promise<T> {
    const response = await this.request(url, 'GET', 200);
    try {
      return JSON.parse(response.body) as T;
    } catch {
      throw new OutpostError(certErrors.ERR_DNS_PROVIDER, `powerdns: the answer is not JSON: ${excerpt(response.body)}`);
    }
  }

  private failure(response: ProviderResponse): string {
    const status = response.status;
    const detail = errorText(response.body);
    if (status === 401 || status === 403) return `powerdns: the API refused the key (HTTP ${status}): check api_token`;
    if (status === 404) return `powerdns: zone ${this.settings.zone}. not found at ${this.settings.serverUrl} (HTTP 404): check zone and server_url`;
    if (status >= 500) return `powerdns: server error (HTTP ${status}): ${detail}`;
    return `powerdns: the change was refused (HTTP ${status}): ${detail}`;
  }
}

/** PowerDNS explains a failure in `{"error": "..."}`; some answers (404) are plain text. */
function errorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: quoted as it is.
  }
  return excerpt(body);
}
