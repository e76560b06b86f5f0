// Counts the events of each run and acknowledges the run once its last event arrives.
import { runActor } from '../../../src/actor/worker-entry.js';
import { benchAckTopic, benchEventTopic, eventSubscriberActor } from './kind.js';

runActor(eventSubscriberActor, {
  start(context) {
    let run = -1;
    let received = 0;
    context.subscribe(benchEventTopic, (event) => {
      if (event.run !== run) {
        run = event.run;
        received = 0;
      }
      received++;
      if (event.seq === event.count - 1) context.publish(benchAckTopic, { run, subscriber: context.name, received }, { retain: false });
    });
    return {};
  },
});
