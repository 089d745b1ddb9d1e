// The events the Go side sends (runtime.EventsEmit), mirrored from its
// structs. Their names and kinds are the codes generated from the Go
// constants into codes.ts.
import type { CaptureResult, Moment } from './models';
import type { CaptureKindCode, EngineCode, MomentKindCode, OutboxEventCode, StepCode, WriteKindCode, WriteStateCode } from './codes.js';

/** CaptureEvent mirrors app.CaptureEvent (sent on "capture"). */
export interface CaptureEvent {
  batch: string;
  kind: CaptureKindCode;
  total: number;
  done: number;
  names: string[] | null;
  result: CaptureResult | null;
}

/** OutboxEvent mirrors app.OutboxEvent (sent on "outbox"). */
export interface OutboxEvent {
  kind: OutboxEventCode;
  entry_id: string;
  step: StepCode | '';
  bytes_sent: number;
  /** detail is the technical text of the last failure, for "Details" only. */
  detail: string;
  /** code is the error code of the entry's last failure (codes.ts). */
  code: string;
  next_try: string;
}

/** MomentEvent mirrors app.MomentEvent (sent on "moment" when the
 * engine's log says a moment changed: a reading arrived, say; "many"
 * when too many changed at once: the list is to be read again). */
export interface MomentEvent {
  kind: MomentKindCode;
  id: string;
  moment: Moment | null;
}

/** EngineSwitched mirrors app.EngineSwitched, sent on "engine" once after
 * each switch of engine (app/state.go): nothing any screen shows is the
 * new engine's, so each reads what it shows again. */
export interface EngineSwitched {
  engine: EngineCode;
  url: string;
}

/** WriteEvent mirrors view.WriteEvent (sent on "write" whenever one of
 * Dad's writes is sent, parked, retried or discarded). */
export interface WriteEvent {
  id: string;
  kind: WriteKindCode;
  moment_id: string;
  state: WriteStateCode;
  /** brought_back: the write, sent, brought its moment back from
   * Recently deleted. */
  brought_back?: boolean;
}
