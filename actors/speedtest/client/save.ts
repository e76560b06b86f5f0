// `netspeed SERVER --save`: hands the result to the server's POST /api/results and gives back the
// address of its page. A server that keeps no results (or is not netspeed) is named as such.
import type { SavedAnswer } from '../site/result.js';
import type { ResultInput } from '../site/result.js';
import { createAgent, exchange } from './http.js';
import { deadlineOf, type Target } from './phases.js';
import type { JsonReport } from './report.js';
import { apiUrl } from './server-url.js';

export async function saveResult(target: Target, report: JsonReport): Promise<string> {
  const input: ResultInput = {
    source: 'client',
    download_bps: report.download_bps,
    upload_bps: report.upload_bps,
    ping_ms: report.ping_ms,
    jitter_ms: report.jitter_ms,
    loss_percent: report.loss_percent,
    download_loaded_latency_ms: report.download_loaded_latency_ms,
    upload_loaded_latency_ms: report.upload_loaded_latency_ms,
  };
  const agent = createAgent(target.url, 1);
  try {
    const body = Buffer.from(JSON.stringify(input));
    const response = await exchange(apiUrl(target.url, '/api/results'), agent, deadlineOf(target, 'save'), {
      method: 'POST',
      body,
      contentType: 'application/json',
    });
    const text = ((await response.body()) ?? Buffer.alloc(0)).toString('utf8');
    if (response.status !== 201) throw new Error(`save: ${target.shown} answered ${response.status}${reasonOf(text)}`);
    const answer = JSON.parse(text) as SavedAnswer;
    return new URL(answer.page, `${target.url.href.replace(/\/+$/, '')}/`).href;
  } finally {
    agent.destroy();
  }
}

function reasonOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    return typeof error === 'string' ? `: ${error}` : '';
  } catch {
    return '';
  }
}
