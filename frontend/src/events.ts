// The events the Go side sends (runtime.EventsEmit), mirrored from its
// structs. The kinds are unions of the Go constants; app/events_test.go
// reads this file and fails when a Go constant is missing here.
import type { CaptureResult, Moment } from './models';
import type { WriteKindCode } from './codes.js';

/** CaptureKind: the Kind of app.CaptureEvent (app/capture.go). */
export type CaptureKind = 'start' | 'result' | 'done';

/** CaptureEvent mirrors app.CaptureEvent (sent on "capture"). */
export interface CaptureEvent {
  batch: string;
  kind: CaptureKind;
  total: number;
  done: number;
  names: string[] | null;
  result: CaptureResult | null;
}

/** OutboxKind: outbox.EventKind (outbox/events.go). */
export type OutboxKind = 'added' | 'step_done' | 'progress' | 'waiting' | 'parked' | 'done' | 'removed' | 'retried' | 'reset';

/** StepName: an outbox entry's steps (outbox/entry.go). */
export type StepName = 'create' | 'copy' | 'turn' | 'original';

/** OutboxEvent mirrors app.OutboxEvent (sent on "outbox"). */
export interface OutboxEvent {
  kind: OutboxKind;
  entryID: string;
  step: StepName | '';
  bytesSent: number;
  /** detail is the technical text of the last failure, for "Details" only. */
  detail: string;
  /** code is the error code of the entry's last failure (codes.ts). */
  code: string;
  nextTry: string;
}

/** MomentKind: the Kind of app.MomentEvent (app/watch.go). */
export type MomentKind = 'changed' | 'deleted' | 'many';

/** MomentEvent mirrors app.MomentEvent (sent on "moment" when the
 * engine's log says a moment changed: a reading arrived, say; "many"
 * when too many changed at once: the list is to be read again). */
export interface MomentEvent {
  kind: MomentKind;
  id: string;
  moment: Moment | null;
}

/** EngineSwitched mirrors app.EngineSwitched, sent on "engine" once after
 * each switch of engine (app/state.go): nothing any screen shows is the
 * new engine's, so each reads what it shows again. */
export interface EngineSwitched {
  engine: 'local' | 'remote';
  url: string;
}

/** WriteState: the WriteState* states of app.Write and app.WriteEvent
 * (app/views.go): a note, a caption, a kept phrase… on its way to the
 * engine, parked, sent, or (an event only) discarded unsent. */
export type WriteState = 'waiting' | 'parked' | 'sent' | 'discarded';

/** WriteKind: the kinds of app.Write, generated from the outbox's table
 * of kinds into codes.ts. */
export type WriteKind = WriteKindCode;

/** WriteEvent mirrors app.WriteEvent (sent on "write" whenever one of
 * Dad's writes is sent, parked, retried or discarded). */
export interface WriteEvent {
  id: string;
  kind: WriteKind;
  moment_id: string;
  state: WriteState;
}
