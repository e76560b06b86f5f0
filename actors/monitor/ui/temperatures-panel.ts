// Temperatures: shown only on a machine that has sensors. A sensor with a critical threshold gets a
// bar of how near it is, coloured as every bar is; one without shows its figure only.
import type { TemperatureSensor } from '../browser.js';
import { byId, element } from '../../../ui/common/dom.js';
import { formatCelsius } from './format.js';
import { KeyedList } from './keyed-list.js';
import { createMeter, setMeter } from './meter.js';

interface SensorView {
  root: HTMLElement;
  name: HTMLElement;
  value: HTMLElement;
  meter: HTMLElement;
}

export class TemperaturesPanel {
  private readonly panel = byId('temperatures');
  private readonly list = new KeyedList<TemperatureSensor, SensorView>(byId('temperatures-list'), {
    key: (sensor) => `${sensor.chip}/${sensor.label}`,
    create: () => {
      const root = element('li', 'sensor');
      const name = element('span', 'sensor-name truncate');
      const meter = createMeter('meter-thin');
      const value = element('span', 'sensor-value');
      root.append(name, meter, value);
      return { root, name, value, meter };
    },
    update: (view, sensor) => {
      view.name.textContent = `${sensor.chip} · ${sensor.label}`;
      view.name.title = view.name.textContent;
      view.value.textContent = formatCelsius(sensor.celsius);
      view.meter.hidden = sensor.criticalCelsius === null;
      if (sensor.criticalCelsius !== null) {
        setMeter(view.meter, (100 * sensor.celsius) / sensor.criticalCelsius);
        view.meter.setAttribute('aria-label', `${view.name.textContent}, critical at ${formatCelsius(sensor.criticalCelsius)}`);
        view.value.title = `critical at ${formatCelsius(sensor.criticalCelsius)}`;
      }
    },
  });

  update(sensors: readonly TemperatureSensor[]): void {
    this.panel.hidden = sensors.length === 0;
    this.list.show(sensors);
  }
}
