// The one module that talks to the Go side. It wraps the generated Wails
// bindings (frontend/wailsjs, made by `wails generate module`) and the Wails
// runtime's events and file drop; the rest of the UI imports only this.
import * as Capture from '../wailsjs/go/app/Capture';
import * as Moments from '../wailsjs/go/app/Moments';
import * as Phrases from '../wailsjs/go/app/Phrases';
import * as Outbox from '../wailsjs/go/app/Outbox';
import * as Settings from '../wailsjs/go/app/Settings';
import * as Sync from '../wailsjs/go/app/Sync';
import type { app } from '../wailsjs/go/models';
import { EventsOn, OnFileDrop } from '../wailsjs/runtime/runtime';
import { eventName, imageSize } from './codes';
import type { DialogWords } from './words';
import type { CaptureEvent, EngineSwitched, MomentEvent, OutboxEvent, WriteEvent } from './events';
import type { MoveView, Offsite, OffsiteView, Page, Pippa, Status, SyncStatus } from './models';

export type { CaptureEvent, EngineSwitched, MomentEvent, OutboxEvent, WriteEvent } from './events';
export type * from './models';

/** BackendError is what every failed call rejects with: app.UIError,
 * whose words words.ts's problem makes. Its message is the technical
 * detail (or the code), for logs. */
export class BackendError extends Error {
  readonly code: string;
  constructor(readonly error: app.UIError) {
    super(error.detail || error.code);
    this.code = error.code;
    this.name = 'BackendError';
  }
}

/** tile is the URL of a picture at the size of a list's tile (640
 * pixels): thumb is a moment's or a card's picture URL (app/media.go's
 * /media/ or /outbox-copy/, which carry no query), the 1,600-pixel small
 * copy, which the dialog and the viewer show. WebKit keeps a picture on
 * screen decoded, so a tile from the small copy costs six times its
 * memory. An empty URL stays empty. */
export function tile(thumb: string): string {
  return thumb && `${thumb}?size=${imageSize.tile}`;
}

/** errorText is what a failed call says to the person: the message of a
 * BackendError (or any Error), or the value itself. */
export function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** canceled tells whether a call failed because Dad canceled it (closed
 * a file dialog, say): nothing to report. */
export function canceled(e: unknown): boolean {
  return e instanceof BackendError && e.code === 'canceled';
}

function isUIError(v: unknown): v is app.UIError {
  return typeof v === 'object' && v !== null && 'code' in v && 'detail' in v;
}

/** call runs a binding and turns its rejection into a BackendError. */
/** firstPage is the first page of Moments read as the window boots,
 * until the Moments screen takes it. */
let firstPage: { limit: number; page: Promise<Page> } | null = null;

/** firstPageWhenReady reads the first page of Moments; while Spark is still
 * starting (the engine opening) it asks again every 25 ms, for up to 10 s. */
async function firstPageWhenReady(limit: number): Promise<Page> {
  const until = performance.now() + 10_000;
  for (;;) {
    try {
      return await call(Moments.Page('', limit));
    } catch (e) {
      if (!(e instanceof BackendError && e.code === 'not_ready') || performance.now() > until) throw e;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** paintMarks are the page's marks on its way to the first tiles:
 * performance.now() when each step was first reached (0: not yet), and the
 * page's origin, which the app's log turns into times since it started. */
const paintMarks: app.PaintMarks = { origin: performance.timeOrigin, script: 0, first_page: 0, app: 0, tiles: 0 };

/** markPaint marks the first time the page reaches step. */
export function markPaint(step: 'script' | 'first_page' | 'app' | 'tiles'): void {
  if (!paintMarks[step]) paintMarks[step] = performance.now();
}

async function call<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e: unknown) {
    if (isUIError(e)) throw new BackendError(e);
    throw new BackendError({ code: 'failed', detail: errorText(e) } as app.UIError);
  }
}

export const backend = {
  capture: {
    files: (batch: string, paths: string[]) => call(Capture.Files(batch, paths)),
    filesAgain: (batch: string, paths: string[]) => call(Capture.FilesAgain(batch, paths)),
    choosePhotos: (batch: string, d: DialogWords) => call(Capture.ChoosePhotos(batch, d)),
    importFolder: (batch: string, d: DialogWords) => call(Capture.ImportFolder(batch, d)),
    paste: (batch: string, mime: string, base64: string) => call(Capture.Paste(batch, mime, base64)),
  },
  moments: {
    page: (before: string, limit: number): Promise<Page> => {
      const first = firstPage;
      if (before === '' && first && first.limit === limit) {
        firstPage = null;
        return first.page;
      }
      return call(Moments.Page(before, limit));
    },
    /** readFirst reads the first page of Moments as the window boots
     * (main.ts), waiting for Spark to have started, and keeps it for the
     * screen's own first read of that page, so the two are one trip. */
    readFirst: (limit: number): Promise<Page> => {
      const page = firstPageWhenReady(limit);
      firstPage = { limit, page };
      return page;
    },
    /** forgetFirst drops the page readFirst kept, once the window is
     * drawn: a later read must not get that old page. */
    forgetFirst: (): void => {
      firstPage = null;
    },
    get: (id: string) => call(Moments.Get(id)),
    /** setCaption saves a caption typed from base, the caption the
     * window showed (app Moments.SetCaption): a caption changed meanwhile
     * elsewhere is kept beside it. */
    setCaption: (id: string, caption: string, base: string) => call(Moments.SetCaption(id, caption, base)),
    /** dismiss sets aside an alternative caption, by its words. */
    dismiss: (id: string, alternative: string) => call(Moments.Dismiss(id, alternative)),
    /** setWords keeps the words read in a moment's photo. */
    setWords: (id: string, text: string, lang: string) => call(Moments.SetWords(id, text, lang)),
    setTakenAt: (id: string, takenAt: string) => call(Moments.SetTakenAt(id, takenAt)),
    remove: (id: string) => call(Moments.Delete(id)),
    /** deleted reads a page of Recently deleted (app Moments.Deleted). */
    deleted: (before: string, limit: number): Promise<Page> => call(Moments.Deleted(before, limit)),
    /** restore brings a deleted moment back, through the outbox. */
    restore: (id: string) => call(Moments.Restore(id)),
    askCareful: (momentID: string, jobID: string) => call(Moments.AskCareful(momentID, jobID)),
    addNote: (id: string, text: string) => call(Moments.AddNote(id, text)),
    reading: (id: string) => call(Moments.Reading(id)),
    readAgain: (momentID: string, requestID: string) => call(Moments.ReadAgain(momentID, requestID)),
    search: (q: string) => call(Moments.Search(q)),
    onScreen: (ids: string[]) => call(Moments.OnScreen(ids)),
    /** firstPaint tells the app the first tiles are drawn, with the
     * page's marks on its way there (markPaint), for its log. */
    firstPaint: (tiles: number) => call(Moments.FirstPaint(tiles, paintMarks)),
  },
  phrases: {
    list: () => call(Phrases.List()),
    keep: (text: string, momentID: string) => call(Phrases.Keep(text, momentID)),
    remove: (id: string) => call(Phrases.Remove(id)),
    recall: (recallID: string) => call(Phrases.Recall(recallID)),
  },
  outbox: {
    /** status is everything the window says of the outbox, in one read
     * (app.OutboxStatus): outbox.ts keeps the latest for every screen. */
    status: () => call(Outbox.Status()),
    entries: () => call(Outbox.Entries()),
    retry: (id: string) => call(Outbox.Retry(id)),
    retryAll: () => call(Outbox.RetryAll()),
    saveOriginal: (id: string, d: DialogWords) => call(Outbox.SaveOriginal(id, d)),
    discard: (id: string) => call(Outbox.Discard(id)),
    sendNow: () => call(Outbox.SendNow()),
    writes: () => call(Outbox.Writes()),
  },
  settings: {
    get: () => call(Settings.Get()),
    useLocal: () => call(Settings.UseLocal()),
    useRemote: (url: string, token: string) => call(Settings.UseRemote(url, token)),
    test: (url: string, token: string) => call(Settings.Test(url, token)),
    connect: (text: string, anyway: boolean) => call(Settings.Connect(text, anyway)),
    addressWarning: (url: string) => call(Settings.AddressWarning(url)),
    setPippa: (p: Pippa) => call(Settings.SetPippa(p)),
    /** setWordsLang: the language the words in photos are looked for in ("eng"), or "off". */
    setWordsLang: (lang: string) => call(Settings.SetWordsLang(lang)),
    openDataFolder: () => call(Settings.OpenDataFolder()),
    openLogFolder: () => call(Settings.OpenLogFolder()),
    status: (): Promise<Status> => call(Settings.Status()),
    /** offsite: the off-site copy of the engine in use, from its health. */
    offsite: (): Promise<OffsiteView> => call(Settings.Offsite()),
    testOffsite: (o: Offsite) => call(Settings.TestOffsite(o)),
    setOffsite: (o: Offsite): Promise<OffsiteView> => call(Settings.SetOffsite(o)),
    turnOffOffsite: (): Promise<OffsiteView> => call(Settings.TurnOffOffsite()),
    chooseOffsiteFolder: (d: DialogWords) => call(Settings.ChooseOffsiteFolder(d)),
    moveCheck: () => call(Settings.MoveCheck()),
    bringAlong: () => call(Settings.BringAlong()),
  },
  sync: {
    status: () => call(Sync.Status()),
    rebuild: () => call(Sync.Rebuild()),
    setCacheLimit: (gb: number) => call(Sync.SetCacheLimit(gb)),
  },
  onCapture(fn: (e: CaptureEvent) => void): () => void {
    return EventsOn(eventName.capture, (e: CaptureEvent) => fn(e));
  },
  onOutbox(fn: (e: OutboxEvent) => void): () => void {
    return EventsOn(eventName.outbox, (e: OutboxEvent) => fn(e));
  },
  /** onWrite: one of Dad's writes was sent, parked, retried or discarded. */
  onWrite(fn: (e: WriteEvent) => void): () => void {
    return EventsOn(eventName.write, (e: WriteEvent) => fn(e));
  },
  /** onPhrases: a kept or removed phrase reached the engine. */
  onPhrases(fn: () => void): () => void {
    return EventsOn(eventName.phrases, () => fn());
  },
  /** onMove: how far bringing this computer's moments along has got
   * (app/move.go, sent on "move"). */
  onMove(fn: (v: MoveView) => void): () => void {
    return EventsOn(eventName.move, (v: MoveView) => fn(v));
  },
  /** onMoment: a moment changed in the engine (see store.ts). */
  onMoment(fn: (e: MomentEvent) => void): () => void {
    return EventsOn(eventName.moment, (e: MomentEvent) => fn(e));
  },
  /** onEngine: Settings switched engines (app/state.go, sent once on
   * "engine"): every screen reads what it shows again, from the engine now
   * chosen (Moments, Phrases, the Outbox, a search, the status bar). */
  onEngine(fn: (e: EngineSwitched) => void): () => void {
    return EventsOn(eventName.engine, (e: EngineSwitched) => fn(e));
  },
  /** onSync: this computer's copy of the family engine synced (syncstatus.ts). */
  onSync(fn: (s: SyncStatus) => void): () => void {
    return EventsOn(eventName.sync, (s: SyncStatus) => fn(s));
  },
  /** onFileDrop calls fn with the paths of files dropped on an element
   * styled with --wails-drop-target: drop. */
  onFileDrop(fn: (paths: string[]) => void): void {
    OnFileDrop((_x: number, _y: number, paths: string[]) => fn(paths), true);
  },
};
