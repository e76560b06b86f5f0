// The topic a role's threads push their figures on, and the supervisor its own: one per role, kept by
// the supervisor per thread, so a front that starts (or restarts) has every thread's latest figures.
import { declareTopic, type Topic } from '../actor/topic.js';
import type { MetricFamily } from './family.js';

export interface ThreadFigures {
  /** The thread's actor name (`recv/pool`), or `supervisor`. */
  thread: string;
  families: MetricFamily[];
}

const topics = new Map<string, Topic<ThreadFigures>>();

export function metricsTopic(role: string): Topic<ThreadFigures> {
  let topic = topics.get(role);
  if (topic === undefined) {
    topic = declareTopic<ThreadFigures>(`metrics/${role}`);
    topics.set(role, topic);
  }
  return topic;
}

/** How often each thread pushes its figures, unless the host config says otherwise. */
export const defaultMetricsIntervalMs = 5000;
