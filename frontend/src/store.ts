// One place where the UI learns that a moment changed: the Go side's
// "moment" events (the engine's log grew: a reading arrived, a caption was
// edited) and the UI's own edits. Cards, tiles, the moment dialog and the
// recall follow it instead of polling.
import { backend, type Moment } from './backend';
import type { MomentEvent, WriteEvent } from './events';

type Listener = (e: MomentEvent) => void;
const listeners = new Set<Listener>();
let wired = false;

/** onMoment calls fn for every change of a moment; it returns a function
 * that stops it. */
export function onMoment(fn: Listener): () => void {
  if (!wired) {
    wired = true;
    backend.onMoment((e) => publish(e));
    backend.onWrite((e) => void written(e));
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

/** written follows one of Dad's writes to the engine (the "write" event):
 * once sent, parked or discarded, the moment it touched is read again, so
 * tiles and the open dialog say "done" (or show it as it was) without a
 * reload. A discarded note or delete changes the list itself. */
async function written(e: WriteEvent): Promise<void> {
  if (e.state === 'waiting') return;
  if (!e.moment_id) return;
  if (e.kind === 'delete' && e.state === 'sent') {
    deleted(e.moment_id);
    return;
  }
  try {
    changed(await backend.moments.get(e.moment_id));
  } catch {
    // Gone (a note never sent, removed from the list): read the list anew.
    publish({ kind: 'many', id: '', moment: null });
  }
}
