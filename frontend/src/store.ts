// One place where the UI learns that a moment changed: the Go side's
// "moment" events (the engine's log grew: a reading arrived, a caption was
// edited) and the UI's own edits. Cards, tiles, the moment dialog and the
// recall follow it instead of polling.
import { backend, type Moment } from './backend';
import type { MomentEvent } from './events';

type Listener = (e: MomentEvent) => void;
const listeners = new Set<Listener>();
let wired = false;

/** onMoment calls fn for every change of a moment; it returns a function
 * that stops it. */
export function onMoment(fn: Listener): () => void {
  if (!wired) {
    wired = true;
    backend.onMoment((e) => publish(e));
  }
  listeners.add(fn);
  return () => listeners.delete(fn);
}

/** publish tells every listener about a change. */
export function publish(e: MomentEvent): void {
  for (const l of [...listeners]) l(e);
}

/** changed publishes a moment edited here. */
export function changed(m: Moment): void {
  publish({ kind: 'changed', id: m.id, moment: m });
}

/** deleted publishes a moment deleted here. */
export function deleted(id: string): void {
  publish({ kind: 'deleted', id, moment: null });
}
