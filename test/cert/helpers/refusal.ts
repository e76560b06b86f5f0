import { OutpostError } from '../../../src/errors.js';

/** Runs `run`, which must refuse its input as a bad request, and returns the refusal's words. */
export function badRequestMessage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof OutpostError && error.code === 'ERR_BAD_REQUEST') return error.message;
    throw error;
  }
  throw new Error('expected ERR_BAD_REQUEST');
}
