// Errors of failed calls, shown as a sentence a person can act on with the
// raw detail behind "Details".
import { BackendError, errorText } from './backend';
import { toast, sentence } from './dom';
import { problem, callFailed, type Explained } from './words';

/** explain words any error of a call. */
export function explain(e: unknown): Explained {
  if (e instanceof BackendError) return problem(e.error);
  return { sentence: callFailed, detail: errorText(e) };
}

/** toastError shows a failed call in a toast. */
export function toastError(e: unknown): void {
  const x = explain(e);
  toast(x.sentence, 'error', x.detail);
}

/** errorBlock shows a failed call in place (a list that could not load). */
export function errorBlock(e: unknown): HTMLElement {
  return sentence(explain(e));
}
