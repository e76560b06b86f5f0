// The three steps under the dial: which phase runs (with a bar that fills over its duration) and each
// finished phase's figure.
import { byId } from '../../../ui/common/dom.js';
import type { Phase } from './speed-test.js';

const phases: readonly Phase[] = ['ping', 'download', 'upload'];

export class PhaseSteps {
  private readonly steps = new Map(phases.map((phase) => [phase, { step: byId(`step-${phase}`), value: byId(`step-${phase}-value`) }]));

  reset(): void {
    for (const { step, value } of this.steps.values()) {
      step.dataset.state = 'pending';
      value.textContent = '—';
    }
  }

  start(phase: Phase, phaseMs: number): void {
    const { step, value } = this.get(phase);
    step.style.setProperty('--phase-ms', `${phaseMs}ms`);
    step.dataset.state = 'active';
    value.textContent = 'measuring…';
  }

  finish(phase: Phase, figure: string, unit: string): void {
    const { step, value } = this.get(phase);
    step.dataset.state = 'done';
    const unitText = document.createElement('span');
    unitText.className = 'step-unit';
    unitText.textContent = unit;
    value.replaceChildren(figure, ' ', unitText);
  }

  /** A failed test leaves the phase it broke in marked. */
  fail(): void {
    for (const { step, value } of this.steps.values()) {
      if (step.dataset.state !== 'active') continue;
      step.dataset.state = 'failed';
      value.textContent = 'failed';
    }
  }

  private get(phase: Phase) {
    const entry = this.steps.get(phase);
    if (entry === undefined) throw new Error(`no step for ${phase}`);
    return entry;
  }
}
