// The Go side's values as the UI names them: aliases of the generated
// models (frontend/wailsjs/go/models.ts), each named once. backend.ts
// re-exports every one and the rest of the UI imports them from there;
// they live apart from backend.ts so that events.ts, whose events carry
// some of them, needs nothing of the module that subscribes to its events.
import type { api, app, view } from '../wailsjs/go/models';

export type CaptureResult = app.CaptureResult;
export type Careful = view.Careful;
export type Entry = app.Entry;
export type Moment = view.Moment;
export type Alternative = view.Alternative;
export type Page = view.Page;
export type Phrase = view.Phrase;
export type Pippa = app.Pippa;
export type Reading = view.Reading;
export type Recall = view.Recall;
export type SettingsView = app.SettingsView;
/** Leftovers: the outbox's files not removed yet, for Settings' details. */
export type Leftovers = app.Leftovers;
/** BackupHealth is an engine's off-site copy as its health tells it
 * (engine/api BackupHealth), its times as the RFC 3339 strings the JSON
 * carries. */
export interface BackupHealth extends Omit<api.BackupHealth, 'shipped_at' | 'behind_since' | 'failing_since' | 'check'> {
  shipped_at?: string;
  behind_since?: string;
  failing_since?: string;
  check?: Omit<api.BackupCheck, 'at'> & { at: string };
}
export type Status = Omit<app.Status, 'backup'> & { backup?: BackupHealth };
/** Offsite is Dad's choice of place for the off-site copy (app.Offsite). */
export type Offsite = app.Offsite;
export type OffsiteTestResult = app.OffsiteTestResult;
export type OffsiteView = Omit<app.OffsiteView, 'health'> & { health?: BackupHealth };
export type SyncStatus = app.SyncStatus;
export type TestResult = app.TestResult;
/** Write is one of Dad's writes on its way (a note, a caption, a kept
 * phrase…), as the Outbox screen lists it beside the photos. */
export type Write = view.Write;
/** OutboxStatus: the outbox's one status (app.OutboxStatus). */
export type OutboxStatus = app.OutboxStatus;
export type MoveView = app.MoveView;
/** SearchView answers Moments.Search (app/view/search.go): each result a
 * moment with its matching texts, in parts with the words that match. */
export type SearchView = view.SearchView;
export type SearchResult = view.SearchResult;
export type SearchPart = view.SearchPart;
