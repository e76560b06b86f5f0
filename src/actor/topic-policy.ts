// Who may publish and subscribe to each topic, as the supervisor checks every publish and subscribe
// an actor posts. A topic belongs to the role whose spec declares it (SpecOptions.topics); the
// supervisor also declares, for every role it runs, the role's own metrics and readiness topics.
// A thread is not trusted to say what a topic allows: the declarations come from the specs, made in
// the main thread before any actor runs.
import { metricsTopic } from '../metrics/topic.js';
import { readinessTopic } from './actor-status.js';
import type { ActorSpec } from './spec.js';

/** An actor as the policy sees it. */
export interface TopicUser {
  role: string;
  kind: string;
}

interface Ownership {
  role: string;
  readers: readonly string[];
}

export class TopicPolicy {
  private readonly topics = new Map<string, Ownership>();

  /** Throws when two roles declare one topic, or one role declares it twice with different readers. */
  constructor(specs: readonly ActorSpec[]) {
    for (const role of new Set(specs.map((spec) => spec.role))) {
      this.declare(metricsTopic(role).name, { role, readers: [] });
      this.declare(readinessTopic(role).name, { role, readers: [] });
    }
    for (const spec of specs) for (const { name, readers } of spec.topics) this.declare(name, { role: spec.role, readers });
  }

  /** Why `actor` may not subscribe to `topic`; undefined when it may. */
  refuseSubscribe(actor: TopicUser, topic: string): string | undefined {
    const owner = this.topics.get(topic);
    if (owner === undefined) return `no role declares topic ${topic}`;
    if (owner.role === actor.role || owner.readers.includes(actor.role) || owner.readers.includes(actor.kind)) return undefined;
    const readers = owner.readers.length === 0 ? '' : ` and ${owner.readers.join(', ')}`;
    return `topic ${topic} is readable by role ${owner.role}${readers} only`;
  }

  /** Why `actor` may not publish on `topic`; undefined when it may. */
  refusePublish(actor: TopicUser, topic: string): string | undefined {
    const owner = this.topics.get(topic);
    if (owner === undefined) return `no role declares topic ${topic}`;
    return owner.role === actor.role ? undefined : `topic ${topic} is published by role ${owner.role} only`;
  }

  private declare(name: string, ownership: Ownership): void {
    const earlier = this.topics.get(name);
    if (earlier === undefined) {
      this.topics.set(name, ownership);
      return;
    }
    if (earlier.role !== ownership.role) throw new Error(`roles ${earlier.role} and ${ownership.role} both declare topic ${name}`);
    if (!sameReaders(earlier.readers, ownership.readers)) throw new Error(`role ${ownership.role} declares topic ${name} twice with different readers`);
  }
}

function sameReaders(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((reader) => right.includes(reader));
}
