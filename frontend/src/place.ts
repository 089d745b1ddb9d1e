// Where Dad's moments are kept and whether Pippa is there to read them,
// as the status bar last learnt it (App.refreshStatus, from the Go side's
// Status): the card, the tile and the moment word what waits for Pippa,
// and what "sent" means, from it (words.ts pippaMissing, keptWords).
import type { Status } from './backend';

/** Place is the engine in use ('local' or 'remote') and Status.pippa
 * (codes.ts pippaState; '' while not known). */
export interface Place {
  engine: string;
  pippa: string;
}

type Listener = (p: Place) => void;
const listeners = new Set<Listener>();
let now: Place = { engine: '', pippa: '' };

/** place is what is known now. */
export function place(): Place {
  return now;
}

/** placeSeen is told each Status the window reads; a change is told to
 * every listener. A Status of an engine that did not answer tells
 * nothing of its Pippa: what was known of it stays. */
export function placeSeen(st: Status): void {
  if (!st.ready) return;
  const next: Place = { engine: st.engine, pippa: st.reachable || st.engine !== now.engine ? st.pippa : now.pippa };
  if (next.engine === now.engine && next.pippa === now.pippa) return;
  now = next;
  for (const l of [...listeners]) l(now);
}

/** onPlace calls fn on every change; it returns a function that stops it. */
export function onPlace(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

let opener: () => void = () => {};

/** setPippaOpener is how main.ts opens Settings at Pippa's section. */
export function setPippaOpener(fn: () => void): void {
  opener = fn;
}

/** openPippaSettings opens Settings at Pippa's section ("Set her up"). */
export function openPippaSettings(): void {
  opener();
}
