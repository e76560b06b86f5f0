// The topic a role's threads push their figures on, and the supervisor its own: one per role, one
// message per family that changed (changed-families.ts), kept by the supervisor per thread and family,
// so a front that starts (or restarts) has every thread's latest figures.
import { declareTopic, type Topic } from '../actor/topic.js';
import type { MetricFamily } from './family.js';

export interface ThreadFigures {
  /** The thread's actor name (`recv/pool`), or `supervisor`. */
  thread: string;
  family: MetricFamily;
}

/** The key a thread's family is kept under: its latest push replaces only its own. */
export function figuresKey(figures: ThreadFigures): string {
  return `${figures.thread} ${figures.family.name}`;
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
