// The words the UI shows: every sentence and label Dad reads, the
// screens' own and those for what the Go side reports (readings, their
// states and their errors), in sentences a person can act on. The Go side
// sends codes, names and numbers (codes.ts); every sentence is made here,
// and none from the engine's own words; test/sentences.test.ts finds any
// written elsewhere. Pure functions (no DOM), so the unit tests run them
// in Node.
import { readFail, readingStatus, engineError, appError, syncStop, connectionTest, addressWarning, moveStop, waitsFor, writeKind, offsiteTest, offsiteKind, backupState, backupProblem, pippaState, photoWait, outboxProblem } from './codes.js';
import type { PhotoWaitCode, ReadingStatusCode, StepCode, SyncStateCode, WriteKindCode } from './codes.js';

/** The fields of a reading (view.Reading) these functions look at. */
export interface ReadingLike {
  mode: string;
  status: string;
  text: string;
  error: string;
  /** error_code is why a failed reading failed (codes.ts's readFail); ""
   * from an engine older than the codes. */
  error_code?: string;
  started_at?: string;
}

/** The fields of a moment (view.Moment) these functions look at. */
export interface MomentLike {
  kind: string;
  pending: boolean;
  readings: ReadingLike[] | null;
}

/** drawable are the types the webview can draw; an original of another
 * type (HEIC) is shown as its small copy. */
export const drawable = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif']);

/** DialogWords is what a system file dialog says (app.FileDialog): the
 * system draws the dialog, the words are the window's. */
export interface DialogWords {
  title: string;
  /** photos and all name the file dialog's two filters. */
  photos?: string;
  all?: string;
}

/** dialogWords are the words of each file dialog Spark opens. */
export const dialogWords = {
  photos: { title: 'Choose photos to add to Spark', photos: 'Photos (JPEG, PNG, WebP, HEIC)', all: 'All files' },
  folder: { title: 'Choose a folder of photos to import' },
  saveOriginal: { title: 'Choose where to save the original' },
} as const satisfies Record<string, DialogWords>;

/** noteKept is what Dad reads once his note is stored: it is sent on its
 * own, so it says nothing of the engine. */
export const noteKept = 'Note kept. It is safe on this computer, and you will find it in Moments.';

/** FullPhotoWords is what the moment's dialog, the viewer and a tile say
 * of a photo kept without its full photo (its original). */
export interface FullPhotoWords {
  dialog: string;
  viewer: string;
  /** tile: a few words on the tile; "" when it says nothing. */
  tile: string;
}

/** fullPhotoWords says what becomes of a photo's full photo when the
 * engine has only its small copy (view.Moment.FullPhoto): on its way only
 * when Spark is sending it. */
export function fullPhotoWords(fullPhoto: string): FullPhotoWords {
  switch (fullPhoto) {
    case 'refused':
      return {
        dialog: 'The full photo was not taken, so only its small copy is kept. The Outbox says why, and what you can do.',
        viewer: 'The full photo was not taken; this is its small copy. The Outbox says what you can do.',
        tile: 'Full photo not sent',
      };
    case 'none':
      return {
        dialog: 'Kept without its full photo: only this small copy is kept.',
        viewer: 'Kept without its full photo; this is its small copy.',
        tile: 'Full photo not kept',
      };
  }
  return { dialog: 'The full photo is on its way.', viewer: 'The full photo is still on its way; this is its small copy.', tile: '' };
}

/** RemoveRefused is what the Outbox asks before it removes a photo whose
 * moment and small copy are already kept, its full photo refused. */
export function removeRefused(name: string): { title: string; body: string; keep: string; del: string } {
  return {
    title: `Remove ${name} from the list?`,
    body: 'Its moment and small copy are already kept, with what Pippa said; only the full photo was not taken. You can keep the moment without its full photo, or delete the moment too. To keep the full photo on this computer, use “Save the original…” first.',
    keep: 'Keep the moment without it',
    del: 'Delete the moment too',
  };
}

/** removedWords is the toast once Dad chose (removeRefused). */
export function removedWords(name: string, deleted: boolean): string {
  return deleted ? `${name} is removed, and its moment is deleted.` : `${name} is removed from the list. Its moment stays in Moments, without its full photo.`;
}

/** memberName writes a family member's name (view.Moment's added_by,
 * view.Phrase's kept_by) as a name in a sentence: as the engine's owner
 * typed it, with a capital first letter ("mum": Mum). It is never a
 * token's name: the Go side gives only members'. */
export function memberName(member: string): string {
  const first = member.codePointAt(0);
  if (first === undefined) return '';
  const c = String.fromCodePoint(first);
  return c.toLocaleUpperCase() + member.slice(c.length);
}

/** addedByWords says who added a moment, when it was another family
 * member (view.Moment's added_by; "" says nothing). */
export function addedByWords(member: string): string {
  return member ? `Added by ${memberName(member)}` : '';
}

/** ownerOnlyWords says, under addedByWords, why another member's moment
 * offers no caption to edit and no Delete (view.Moment's owner_only). */
export function ownerOnlyWords(member: string): string {
  return `Only ${memberName(member)} can change its caption or delete it.`;
}

/** keptByWords says who keeps a phrase, when another family member does
 * (view.Phrase's kept_by; "" says nothing). */
export function keptByWords(member: string): string {
  return member ? `Kept by ${memberName(member)}` : '';
}

/** keptLine is a kept phrase's line under its words: when it was kept,
 * and by whom when another family member keeps it (kept_by, view.Phrase's). */
export function keptLine(keptAt: string, keptBy: string): string {
  const d = when(keptAt);
  if (!keptBy) return `Kept ${d}`;
  return d ? `${keptByWords(keptBy)}, ${d}` : keptByWords(keptBy);
}

/** keeperOnlyWords stands where a phrase's Remove would be when only its
 * keeper may remove it (view.Phrase's keeper_only). */
export function keeperOnlyWords(member: string): string {
  const who = memberName(member);
  return `${who} kept this phrase, so only ${who} can remove it.`;
}

/** phraseRemoveProblem words a phrase's removal that failed (e, as
 * problem reads it): refused because another family member keeps it, it
 * names that member when the window knows them (kept_by, view.Phrase's);
 * any other failure is problem's. */
export function phraseRemoveProblem(e: UIErrorLike, keptBy: string): Explained {
  if (e.code !== engineError.forbidden) return problem(e);
  const who = keptBy ? memberName(keptBy) : '';
  const sentence = who
    ? `${who} kept this phrase, so only ${who} can remove it. Whoever looks after Spark can too.`
    : 'Another family member kept this phrase, so only they can remove it. Whoever looks after Spark can too.';
  return { sentence: e.parked ? `${sentence} Your removal is kept in the Outbox, where you can discard it.` : sentence, detail: e.detail ?? '' };
}

/** kindWord names a moment's kind for a person. */
export function kindWord(m: { kind: string }): string {
  return m.kind === 'note' ? 'Note' : m.kind === 'recall' ? 'Quick recall' : 'Photo';
}

/** titleOf is what a search result is titled: a photo's caption, else the
 * first words of Pippa's reading of it (so that uncaptioned photos differ),
 * else the kind of moment; a note's own words show as its match. */
export function titleOf(m: MomentLike & { caption: string }): string {
  if (m.kind !== 'photo') return kindWord(m);
  if (m.caption) return m.caption;
  const r = latest(m.readings);
  if (!r || r.status !== readingStatus.finished || !r.text) return kindWord(m);
  const first = r.text.split(/(?<=[.!?])\s/)[0] ?? r.text;
  const words = first.split(/\s+/);
  return words.length <= 6 ? first : `${words.slice(0, 6).join(' ').replace(/[,:;]$/, '')}…`;
}

/** latest is the reading to show first: the newest finished one, else the
 * newest of any state (so a running or failed reading shows while there is
 * nothing better). Readings come oldest first. */
export function latest<R extends ReadingLike>(readings: R[] | null): R | null {
  const rs = readings ?? [];
  for (let i = rs.length - 1; i >= 0; i--) {
    const r = rs[i];
    if (r && r.status === readingStatus.finished && r.text) return r;
  }
  return rs.at(-1) ?? null;
}

/** busy tells whether Pippa is still on one of the moment's readings. */
export function busy(m: MomentLike): boolean {
  return (m.readings ?? []).some((r) => r.status === readingStatus.queued || r.status === readingStatus.running);
}

/** Where is where Dad's moments are kept ('local' or 'remote') and
 * whether that engine has Pippa (Status.pippa: codes.ts pippaState, ''
 * while not known): place.ts's Place. */
export interface Where {
  engine: string;
  pippa: string;
}

/** pippaMissing says, where a reading is waited for, that none comes until
 * someone sets Pippa up (issue 36): on this computer, Dad can (pippaSetUp
 * is the link); the family engine's Pippa is for whoever looks after it.
 * '' when the engine has her, or when that is not known. */
export function pippaMissing(w: Where): string {
  if (w.pippa !== pippaState.noSeat) return '';
  return w.engine === 'remote' ? 'The family engine has no Pippa yet; ask whoever looks after it.' : 'Pippa isn’t set up on this computer yet, so she can’t read this.';
}

/** pippaSetUp is the link to Settings' Pippa section beside pippaMissing,
 * '' where Dad cannot set her up (the family engine's) or need not. */
export function pippaSetUp(w: Where): string {
  return w.pippa === pippaState.noSeat && w.engine !== 'remote' ? 'Set her up' : '';
}

/** queuedShort is what a card or tile says while a reading waits
 * its turn: never that Pippa is coming when there is none. */
function queuedShort(w: Where): string {
  return pippaMissing(w) || 'Waiting for Pippa…';
}

/** queuedWords is the moment's line under a reading that waits its turn:
 * "soon" only when the engine has a Pippa to read it. */
export function queuedWords(w: Where): string {
  if (pippaMissing(w)) return pippaMissing(w);
  return w.pippa === pippaState.seated ? 'Pippa will look at it soon.' : 'Pippa has not looked at it yet.';
}

/** sendingWords is a card's word while its photo goes from the outbox
 * to the engine in use: "Sending…" only when it goes somewhere. */
export function sendingWords(w: Where): string {
  return w.engine === 'local' ? 'Safe on this computer.' : 'Safe on this computer. Sending…';
}

/** pippaSaved is the toast once Pippa's settings are saved: the photos
 * that waited for her are read too, not only the next ones. */
export const pippaSaved = 'Saved. Pippa reads the photos waiting for her, and the next ones, with these settings.';

/** keptWords is a card's word once its photo is in the engine in use:
 * sent only when it went somewhere (issue 36). */
export function keptWords(w: Where): string {
  if (w.engine === 'remote') return 'Sent to the family engine';
  if (w.engine === 'local') return 'Kept on this computer';
  return 'Saved';
}

/** Preview is what a card or tile says under its picture. */
export interface Preview {
  /** state: 'reading' when text holds Pippa's words; 'no-pippa' when
   * there is no Pippa to read it (pippaMissing). */
  state: 'reading' | 'working' | 'waiting' | 'no-pippa' | 'failed' | 'none' | 'pending';
  text: string;
}

/** preview says what a card or tile shows of a moment's readings, where
 * w is where it is kept (place.ts). */
export function preview(m: MomentLike, w: Where): Preview {
  const missing = pippaMissing(w);
  if (m.pending) return missing ? { state: 'no-pippa', text: missing } : { state: 'pending', text: 'On this computer. Pippa will read it once it is sent.' };
  const r = latest(m.readings);
  if (r && r.status === readingStatus.finished && r.text) return { state: 'reading', text: r.text };
  if (busy(m)) {
    const running = (m.readings ?? []).some((x) => x.status === readingStatus.running);
    if (running) return { state: 'working', text: 'Pippa is reading it…' };
    return { state: missing ? 'no-pippa' : 'waiting', text: queuedShort(w) };
  }
  if (r && r.status === readingStatus.failed) return { state: 'failed', text: 'Pippa could not read it. Open it to try again.' };
  if (m.kind === 'note') return { state: 'none', text: '' };
  return { state: 'none', text: 'No reading yet.' };
}

/** cardQueued is the card's reading line once its reading is asked for
 * (before the moment's own news): as preview says of a queued reading. */
export function cardQueued(w: Where): Preview {
  return { state: pippaMissing(w) ? 'no-pippa' : 'waiting', text: queuedShort(w) };
}

/** Explained is an error in a sentence, with the raw detail kept apart. */
export interface Explained {
  sentence: string;
  detail: string;
}

/** readingError words why a reading failed, from its code (a reading's
 * error_code: codes.ts's readFail). A code it does not know (a newer
 * engine's), or none (a reading from an engine older than the codes), is
 * worded as readingFailed. The engine's own words (the reading's error)
 * are only ever the detail behind "Details"; nothing here reads them. */
export function readingError(code: string): string {
  switch (code) {
    case readFail.pippaUnreachable:
      return 'Pippa did not answer. Check that the program that runs Pippa is started (on this computer that is usually Ollama), then press “Try again”.';
    case readFail.pippaRefused:
      return 'Pippa turned the request down. Check Pippa’s address, model and key in Settings, then press “Try again”.';
    case readFail.photoTooLargeForPippa:
      return 'This picture is too large for Pippa to look at. Add it again so Spark makes a smaller copy.';
    case readFail.pippaAnswerUnreadable:
      return 'Pippa answered, but with nothing to read. Press “Try again”; if it happens again, choose another model in Settings.';
  }
  return 'Pippa could not read this. Press “Try again”.';
}

/** UIErrorLike is what a failed call rejects with (app.UIError): a code,
 * the names and numbers its words need, and the technical detail. */
export interface UIErrorLike {
  code: string;
  detail?: string;
  name?: string;
  min?: number;
  max?: number;
  /** parked: a write the engine refused, kept in the Outbox. */
  parked?: boolean;
}

/** tooLong are the codes of a text the engine will not keep because of its
 * length (a caption past the engine's cap, say). */
const tooLong: ReadonlySet<string> = new Set([engineError.captionTooLong, engineError.turnTooLarge, engineError.bodyTooLarge]);

const somethingWrong = 'Something went wrong. Try again; if it keeps happening, the details below help whoever looks after Spark.';

/** problem words a failed call (app.UIError) from its code, names and
 * numbers; its detail is kept apart, for "Details". A write the engine
 * refused (parked) is said to be kept in the Outbox too. */
export function problem(e: UIErrorLike): Explained {
  const p = refusal(e);
  if (!e.parked) return p;
  return { sentence: `${p.sentence} It is kept in the Outbox, where you can try again or discard it.`, detail: p.detail };
}

/** refusal is problem's sentence for the code alone. */
function refusal(e: UIErrorLike): Explained {
  const detail = e.detail ?? '';
  const name = e.name ?? '';
  const say = (sentence: string, d = detail): Explained => ({ sentence, detail: d });
  switch (e.code) {
    case appError.offline:
      return say('Spark can’t reach where your moments are kept right now. Try again when the connection is back; anything you add meanwhile waits safely on this computer.');
    case appError.unauthorized:
      return say('The family engine did not accept Spark’s key. Paste its connection text again in Settings.');
    case engineError.forbidden:
      return say('This was added by another family member, so only they can change it. Whoever looks after Spark can too.');
    case appError.notReady:
      return say('Spark is still starting. Try again in a moment.');
    case engineError.tooManyReadings:
      return say('You have asked Pippa for more readings than the family engine allows for now (just now, or today). Spark asks her again on its own when it may; nothing is lost.');
    case engineError.tooManyRequests:
      return say('The family engine is busy with many requests from your network just now. Try again in a moment.');
    case engineError.tooManyTurns:
      return say('You have asked Pippa for as many readings of this moment as Spark allows one person. To have her read it anew, add the photo again as a new moment.');
    case engineError.searchTooBroad:
      return say('That search finds too much to show quickly. Add another word, or a few more letters.', '');
    case engineError.noPhrases:
      return say('Keep a phrase first: select some words in one of Pippa’s readings and choose “Keep this phrase”.', '');
    case engineError.momentDeleted:
    case engineError.notFound:
      return say('This moment is no longer there: it was deleted, perhaps on another computer.');
    case engineError.momentPurged:
      return say('This moment was deleted more than 30 days ago, so it has been removed for good with its photos.');
    case engineError.mediaTooLarge:
      return say('This photo is too large to be accepted where your moments are kept.');
    case appError.canceled:
      return say('Nothing was chosen.', '');
    case appError.noPhotos:
      return say(`There are no photos (JPEG, PNG, WebP or HEIC) in ${name}.`, '');
    case appError.notPicture:
      return say(`The clipboard holds ${name}, which Spark can’t keep. Copy a JPEG, PNG, WebP or HEIC picture.`, '');
    case appError.pasteUnreadable:
      return say('The pasted picture could not be read.', '');
    case appError.notWaiting:
      return say('This is no longer waiting: it was sent or removed.', '');
    // Why Spark could not start (Status.problem): startProblem.
    case appError.noDataFolder:
      return say(`Spark can’t create its data folder ${name}. Check that the disk is not full and that you may write there.`);
    case appError.noLog:
      return say(`Spark can’t write its log ${name}. Check that the disk is not full.`);
    case appError.badSettings:
      return say(`Spark can’t read its settings file ${name}: move it aside and start Spark again to get the defaults.`);
    case appError.outboxUnopened:
      return say(
        `Spark can’t open its outbox at ${name}. Your photos in it are kept as they are; Spark will not change or delete them. Quit Spark, copy that folder somewhere safe (it holds photos not yet sent), and ask for help: the outbox can be repaired or its photos imported again from the copy.`,
      );
    case appError.engineInUse:
      return say(
        `Spark can’t start its engine: its folder ${name} is already in use by another program, and only one program at a time may use it. Close the other one (another Spark window, or a spark-engine serve using that folder), then start Spark again.`,
      );
    case appError.engineFailed:
      return say(`Spark can’t start its engine in ${name}. Start Spark again; if it keeps happening, the details below help whoever looks after Spark.`);
    case engineError.badId:
      return say('Spark could not do this: what it was asked about is not something it knows. Try again; if it keeps happening, the details below help whoever looks after Spark.');
    // Why a file was not added: its card names the file.
    case appError.emptyFile:
      return say('The file is empty (0 bytes); it may not have finished copying. Copy it again from the camera or phone.');
    case appError.notPhoto:
      return say('This is not a photo Spark can keep. Spark keeps JPEG, PNG, WebP and HEIC photos: save or export it as one of those first.');
    case appError.damagedPhoto:
      return say('This photo is damaged or cut short. Copy it again from the camera or phone.');
    case appError.photoTooLarge:
      return say('This picture has too many pixels for Spark to make its small copy safely.');
    case appError.diskFull:
      return say('The disk on this computer is full. Free some space, then add the photo again.');
    case appError.noFile:
      return say('This file is not there any more. Check where it is (was the card or phone unplugged?).');
    case appError.notAllowed:
      return say('Spark is not allowed to read this file.');
    case appError.notAdded:
      return say('This photo could not be added. Try again; if it keeps happening, the details below help whoever looks after Spark.');
    case appError.notConnectionText:
      return say('That is not a connection text. It is one line like https://spark.example.org#spk_… ; ask whoever looks after the family engine to send it to you.', '');
    case appError.noEngineAddress:
      return say('The connection text does not start with an engine address (like https://spark.example.org). Paste the whole line you were sent.', '');
    case appError.notEngineAddress:
      return say(`“${name}” is not an engine address. It looks like http://192.168.1.20:8787 or https://spark.example.org.`, '');
    case appError.noToken:
      return say('Paste the token the family engine gave you (spark-engine token add).', '');
    case appError.notPippaAddress:
      return say(`“${name}” is not a Pippa address. For Ollama on this computer it is ${ollamaURL}.`, '');
    case appError.noPippaModel:
      return say('Name the model Pippa should use (for Ollama, for example llava).', '');
    case appError.notOutboxEntry:
      return say('This is no longer in the Outbox.', '');
    case appError.originalDelivered:
      return say(`The original of ${name} is no longer in the Outbox: it was delivered. Open it from Moments instead.`, '');
    case appError.badTakenAt:
      return say('Give the date and time the moment was taken, like 2024-05-01T09:30:00Z.', '');
    case appError.emptyNote:
      return say('Write something first.', '');
    case appError.noWords:
      return say('Select some words of a reading first.', '');
    case appError.badPhrase:
      return say('These words can’t be kept as a phrase. Select fewer words, then keep them again.');
    case appError.noOtherEngine:
      return say('Spark has no other engine to bring moments from: choose the family engine to bring this computer’s moments to it, or this computer’s engine to bring the family engine’s moments here.', '');
    case appError.noFamilyCopy:
      return say('Spark is using the engine on this computer: there is no copy of a family engine to rebuild.', '');
    case appError.badCacheSize:
      return say(`Give a size between ${e.min ?? 0} and ${e.max ?? 0} GB.`, '');
    case appError.engineTooOld:
      return say('This engine is too old to search. Ask whoever looks after it to update Spark.', '');
    case appError.badWordsLang:
      return say('Spark can’t look for words in that language. Choose one of the languages listed.', '');
  }
  if (tooLong.has(e.code)) return say('This is too long to keep. Shorten it and it is saved on its own.');
  return say(somethingWrong);
}

/** startProblem words why Spark could not start (app.Status's problem: a
 * start code, the folder or file as its name, the technical reason as its
 * detail, shown behind "Details"). */
export function startProblem(e: UIErrorLike): Explained {
  return problem(e);
}

/** ollamaURL is Pippa's address for Ollama on this computer (app.OllamaURL). */
export const ollamaURL = 'http://127.0.0.1:11434/v1';

/** syncProblemWords words why this computer's copy of the family engine
 * stopped (SyncStatus state "problem": a syncStop code) or can't reach
 * the engine (state "offline": the call's error code); "" otherwise. */
export function syncProblemWords(s: { state: string; problem: string }): string {
  if (s.state === 'problem') {
    switch (s.problem) {
      case syncStop.mustRebuild:
        return 'The family engine no longer matches the copy on this computer (it may have been restored from an older backup). Your moments are still shown as this computer has them. Rebuild this computer’s copy to fetch everything again.';
      case syncStop.noCopy:
        return 'Spark can’t keep a copy of the family engine on this computer. Your moments are still shown from the family engine while it answers; the details are in Spark’s log.';
    }
    return 'Spark stopped copying the family engine to this computer: the engine sent something this Spark can’t read (the details are in Spark’s log). Your moments are still shown as this computer has them. Rebuild this computer’s copy to fetch everything again; if this comes back, ask whoever looks after the family engine (Spark may need an update).';
  }
  if (s.state === 'offline') {
    if (s.problem === appError.unauthorized) return 'The family engine did not accept Spark’s key. Paste its connection text again in Settings.';
    return 'The family engine can’t be reached right now. Your captures are safe on this computer and will send on their own.';
  }
  return '';
}

/** connectionTestWords words how a connection test went (app.TestResult):
 * connected, no answer at the address, or why the address or the token
 * can't be used. */
export function connectionTestWords(r: { code: string; version: string; address: string; detail?: string }): string {
  switch (r.code) {
    case connectionTest.connected:
      return 'Connected: the family engine answers and accepts Spark’s key.';
    case connectionTest.noAnswer:
      return `The family engine does not answer at ${r.address}. Check the line you were sent, and that the family engine is switched on.`;
    case appError.unauthorized:
      return 'The family engine did not accept Spark’s key. Check the line you were sent, or ask whoever looks after the family engine for a new one.';
  }
  return problem({ code: r.code, name: r.address, detail: r.detail ?? '' }).sentence;
}

/** warningWords words why an engine address needs a word before Spark's
 * token goes there (app.TestResult's and app.SettingsView's warning,
 * Settings.AddressWarning: codes.ts's addressWarning); "" for none. */
export function warningWords(code: string): string {
  switch (code) {
    case '':
      return '';
    case addressWarning.plainHttp:
      return 'This address starts with http://, so the token, and your moments, would cross the network unprotected: someone else on the same network could copy them. Ask whoever runs the family engine for an address that starts with https://.';
  }
  return 'This address may not be safe to send Spark’s key to. Ask whoever runs the family engine for an address that starts with https://.';
}

/** knownEngineWords are Settings' sentences for going back, in one click,
 * to the family engine Spark remembers (its address and key): while it
 * connects, and when it could not (what the test said, r); and, under
 * "Family engine" chosen but not connected, that the moments stay on this
 * computer (as the status bar says) until it connects. */
export const knownEngineWords = {
  connecting: 'Connecting to the family engine you used before…',
  connected: 'Connected. Spark now keeps your moments on the family engine; photos waiting here will go there.',
  failed: (r: { code: string; version: string; address: string; detail?: string }): string =>
    `Spark could not go back to the family engine you used before. ${connectionTestWords(r)}`,
  notYet: 'Not connected yet: until it connects, Spark keeps your moments on this computer.',
};

/** settingsWords are the sentences of Settings, for Dad: where his
 * moments are kept and who reads his photos, in plain words. What a person
 * who looks after the family engine needs (addresses, the key, Pippa's
 * model) is said behind "Details" (details*). */
export const settingsWords = {
  title: 'Settings',
  where: 'Where your moments are kept',
  thisComputer: 'This computer',
  thisComputerMore: ' only',
  family: 'Family engine',
  familyMore: ': a computer the family shares, so everyone’s moments are in one place',
  connectedTo: 'Spark is connected to the family engine. To connect to another one, paste the line you were sent for it.',
  connection: 'Connection text',
  connectionHelp: 'One line that whoever looks after the family engine sends you. Paste it here; Spark checks it before connecting.',
  connectionPlaceholder: 'Paste the line you were sent',
  connect: 'Connect',
  separate: 'Details: the address and the key, typed separately',
  address: 'Address',
  key: 'Key',
  check: 'Check them',
  useThem: 'Connect with these',
  checking: 'Checking…',
  checkingFamily: 'Checking the family engine…',
  /** detailsWhere is behind Details under the choice (whereDetails):
   * the addresses. */
  whereDetails: 'Details: the addresses',
  detailsWhere: (remoteURL: string, localURL: string): string =>
    [remoteURL ? `The family engine is at ${remoteURL}.` : '', localURL ? `The engine on this computer answers at ${localURL} (only this computer can reach it).` : '']
      .filter(Boolean)
      .join(' ') || 'The engine on this computer is not running.',
  pippa: 'Pippa, who reads your photos',
  pippaFamily: 'The family engine has its own Pippa; whoever looks after it sets her up.',
  pippaLocal: 'Pippa looks at each photo and tells you in plain words what it shows.',
  /** pippaHow: how to set her up, said while she is not. */
  pippaHow: ' She works on this computer, without the internet, once the free program Ollama is installed (whoever helps you with the computer can do that). Then press “Use Ollama on this computer”.',
  pippaSetUp: (ollama: boolean): string => (ollama ? 'Pippa is set up on this computer: she reads each photo you add.' : 'Pippa is set up: she reads each photo you add.'),
  pippaNotSetUp: 'Pippa is not set up yet, so photos wait for her reading.',
  useOllama: 'Use Ollama on this computer',
  pippaDetails: 'Details: how Pippa is set up',
  pippaNow: (model: string, url: string): string => `Pippa now uses the model “${model}” at ${url}.`,
  pippaHelp: 'For Ollama: install it, then a model that reads pictures (ollama pull llava). Any OpenAI-compatible chat-completions server works too: its address (ending in /v1), the name of a model that reads images, and a key if it needs one.',
  pippaAddress: 'Address',
  pippaModel: 'Model',
  pippaKey: 'Key',
  pippaKeyPlaceholder: 'Not needed for Ollama',
  savePippa: 'Save Pippa',
  yourData: 'Your data',
  keptIn: 'Spark keeps everything in its data folder on this computer.',
  dataDetails: 'Details: where the data folder is, and Spark’s log',
  dataDir: 'The data folder: ',
  openData: 'Open data folder',
  openLog: 'Open log folder',
  about: 'About Spark',
  version: (v: string): string => `This is Spark version ${v}.`,
  notProtected: 'This address is not protected',
  sendAnyway: 'Send it anyway',
  connected: 'Connected. Spark now keeps your moments on the family engine; photos waiting here will go there.',
  connectedLater: 'Spark will use the family engine once it answers. Photos you add wait safely on this computer until then.',
  noAnswerTitle: 'The family engine does not answer',
  noAnswer: (said: string): string => `${said} You can connect anyway: photos you add wait safely on this computer and are sent once it answers.`,
  connectAnyway: 'Connect anyway',
  nowLocal: 'Spark now keeps your moments on this computer.',
  /** The family engine's copy on this computer (syncstatus.ts). */
  copyRoom: 'Details: room for the small photos',
  copyUsage: (size: string): string => `The small photos take ${size} here; the full-size photos are fetched only when you open one.`,
  copyLimit: 'Room for the small photos, in GB',
  copyLimitHint: 'When it is full, the photos you looked at least recently make room for new ones.',
  copy: 'This computer’s copy',
  copyWhy: 'Spark keeps a copy of the family engine’s moments, readings and phrases on this computer, so you can read them without the internet. ',
  rebuild: 'Rebuild this computer’s copy',
  rebuilding: 'Fetching everything again…',
  rebuildHint: 'Nothing is lost: everything is kept on the family engine, and this computer fetches its copy again from the start.',
  save: 'Save',
};

/** viewerWords are the photo viewer's words: its buttons, and what it
 * says of the photo it shows. */
export const viewerWords = {
  previous: 'Previous photo (←)',
  next: 'Next photo (→)',
  controls: 'Photo controls',
  zoomOut: 'Zoom out (−)',
  zoomIn: 'Zoom in (+)',
  close: 'Close the photo (Escape)',
  closeTitle: 'Close (Escape)',
  fit: 'Fit',
  fitTitle: 'Fit the photo in the window (0)',
  actual: 'Actual size',
  actualTitle: 'Actual size: one dot of the photo for each dot of the screen (1)',
  rotate: 'Rotate',
  rotateTitle: 'Turn a quarter to the right, for viewing only (R)',
  pending: 'This photo is still on this computer: a smaller copy is shown until it is sent.',
  loading: 'Loading the full photo…',
  /** cantShow: the full photo is of a kind the window can't draw (HEIC). */
  cantShow: 'This is a smaller copy: this window can’t show this kind of photo in full. Nothing is lost, the full photo is kept. To see every detail, open it on the phone or computer it came from.',
  failed: 'The full photo could not be loaded; this is a smaller copy. Close the photo and open it again to try once more.',
};

/** pictureWords is what the moment's dialog says under its picture when
 * the full photo is here: how to see it large; its kind and size
 * (originalDetail) go behind Details. */
export const pictureWords = {
  seeLarge: 'Click the photo to see it large.',
  originalDetail: (type: string, size: string): string => `The full photo: a ${type} file of ${size}.`,
  pending: 'Still on this computer; it will be sent on its own.',
};

/** dateNote is what the moment's dialog adds to its date when the moment
 * has no date taken: a photo's date is the day it was added (its file
 * says none); a note's or a recall's date is simply when it was made. */
export function dateNote(kind: string, takenAt: string): string {
  return kind === 'photo' && !takenAt ? ' (the day it was added: the photo doesn’t say when it was taken)' : '';
}

/** emptyMomentsWords is the empty Moments screen: what it says, and its
 * button, which does what the header's "Add photos" does. */
/** deletedWords are Recently deleted's words, and the delete's. */
export const deletedWords = {
  open: 'Recently deleted',
  /** openShort is open where the window is narrow (at 200%). */
  openShort: 'Deleted',
  heading: 'Recently deleted',
  said: 'Moments you delete wait here for 30 days, then they are removed for good with their photos. Restore one to put it back in Moments.',
  empty: 'Nothing has been deleted in the last 30 days.',
  restore: 'Restore',
  reading: 'Looking for what was deleted…',
  close: 'Close',
  confirmTitle: 'Delete this moment?',
  confirmBody: 'It goes to Recently deleted, with Pippa’s readings of it. You can put it back from there for 30 days.',
  confirmYes: 'Delete',
  done: 'Moment deleted. It waits in Recently deleted for 30 days.',
  undo: 'Undo',
  /** when says when a moment was deleted, and how long it still waits
   * (30 days from then, now being now in milliseconds): "Deleted 3 May,
   * 09:12 · removed for good in 12 days". */
  when: (iso: string, now: number = Date.now()): string => {
    if (!iso) return 'Deleted';
    const left = Math.ceil((Date.parse(iso) + 30 * dayMs - now) / dayMs);
    if (Number.isNaN(left)) return `Deleted ${when(iso)}`;
    return `Deleted ${when(iso)} · ${left <= 1 ? 'removed for good within a day' : `removed for good in ${left} days`}`;
  },
  /** restored says a moment is back, by its title. */
  restored: (title: string): string => `“${title}” is back in Moments.`,
};

/** deletedTitle names a moment in Recently deleted: a photo by its title,
 * a note by its first words. */
export function deletedTitle(m: MomentLike & { caption: string }): string {
  return m.kind === 'photo' ? titleOf(m) : firstLines(m.caption, 80) || kindWord(m);
}

export const emptyMomentsWords = {
  said: 'No moments yet. Add photos and they will show here, with what Pippa says about them.',
  add: 'Add photos',
};

/** cardName is a card's name: the file's name, whole when it fits in max
 * characters, else shortened at the end of a word, with "…", never in the
 * middle of one (the whole name is the card's title). A name with no place
 * to end a word before max is shortened at max. */
export function cardName(name: string, max = 40): string {
  const chars = Array.from(name);
  if (chars.length <= max) return name;
  const head = chars.slice(0, max).join('');
  const gap = /[\s._\-–—,(]/u;
  // The word at the cut ends there: the whole head is whole words.
  if (gap.test(chars[max] ?? '')) return `${head.trimEnd()}…`;
  const m = /^(.*\S)[\s._\-–—,(]+\S*$/u.exec(head);
  const cut = m?.[1] && Array.from(m[1]).length >= max / 3 ? m[1] : head;
  return `${cut.trimEnd()}…`;
}

/** searchSourceWords names where a search match was found, so that two
 * readings of one moment are told apart: the caption, Pippa's reading,
 * her careful reading, or a kept phrase. */
export function searchSourceWords(source: string, mode: string): string {
  if (source === 'caption') return 'Caption';
  if (source === 'phrase') return 'Kept phrase';
  if (source === 'words') return 'Words in the photo';
  if (mode === 'careful') return 'Pippa’s careful reading';
  if (mode === 'recall') return 'Quick recall';
  return 'Pippa said';
}

/** dateTime is how the window writes a date and time: in the person's
 * locale, medium date, short time. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** clockTime is how the window writes a time of day alone (a tile's
 * "Today, 2:18 PM"): the same short time as dateTime's. */
export const clockTime = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** when formats an RFC 3339 time for a person; "" when it does not read. */
export function when(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return dateTime.format(d);
}

/** waitingWords says where a change Dad made is while it is not sent yet,
 * from what it waits for (a moment's, a phrase's, a recall's, a careful
 * reading's or a write's waits_for: codes.ts's waitsFor); "" when nothing
 * waits. The moment, the toasts and the Outbox all say it with this. */
export function waitingWords(code: string): string {
  switch (code) {
    case '':
      return '';
    case waitsFor.family:
      return 'Saved on this computer; Spark will send it when the family engine is back.';
    case waitsFor.sending:
      return 'Saved on this computer; the family engine answers, and Spark is sending it now.';
    case waitsFor.local:
      return 'Saved on this computer; Spark will send it to its engine in a moment.';
    case waitsFor.parked:
      return 'This change was turned down where your moments are kept. Open the Outbox to send it again or remove it.';
  }
  return 'Saved on this computer; Spark will send it as soon as it can.';
}

/** WriteLike is what writeWhat reads of an view.Write: its kind and data. */
export interface WriteLike {
  kind: string;
  /** text: what Dad typed of a note, a caption or a phrase kept; a
   * phrase removed's text. */
  text: string;
  /** taken_at: the date taken a taken_at write sets, RFC 3339. */
  taken_at: string;
}

/** writeWhats: the words for each kind of change, keyed by the kinds the
 * outbox's table of kinds generates into codes.ts, so that a kind without
 * words does not build. A date is written as the rest of the window writes
 * dates. */
const writeWhats: Record<WriteKindCode, (w: WriteLike) => string> = {
  [writeKind.note]: (w) => `Note “${w.text}”`,
  [writeKind.caption]: (w) => `Caption “${w.text}”`,
  [writeKind.takenAt]: (w) => {
    const d = when(w.taken_at);
    return d ? `Date taken ${d}` : 'Change the date taken';
  },
  [writeKind.delete]: () => 'Delete a moment',
  [writeKind.restore]: () => 'Bring back a deleted moment',
  [writeKind.keep]: (w) => `Keep the phrase “${w.text}”`,
  [writeKind.unkeep]: (w) => `Remove the phrase “${w.text}”`,
  [writeKind.careful]: () => 'Ask for a careful reading',
  [writeKind.again]: () => 'Ask Pippa again',
  [writeKind.recall]: () => 'Quick recall',
  [writeKind.dismiss]: (w) => `Set aside the other caption “${w.text}”`,
  [writeKind.words]: () => 'The words found in a photo',
};

/** alternativeWords introduces a caption kept beside the moment's own:
 * where and when it was written, as far as Spark knows. */
export function alternativeWords(by: string, at: string): string {
  const d = when(at);
  if (by && d) return `Also written on ${by}, ${d}:`;
  if (by) return `Also written on ${by}:`;
  if (d) return `Also written on another computer, ${d}:`;
  return 'Also written on another computer:';
}

/** twoCaptionsWords marks a tile whose moment keeps a caption written on
 * another computer beside its own. */
export const twoCaptionsWords = 'Two captions';

/** broughtBackWords: Dad's change (a caption, kind) reached a moment
 * deleted on another computer, and brought it back. */
export function broughtBackWords(kind: string): string {
  return kind === writeKind.caption
    ? 'What you wrote brought this moment back from Recently deleted.'
    : 'Your change brought this moment back from Recently deleted.';
}

/** writeWhat names one of Dad's changes on its way, from its kind and its
 * data (view.Write): the Outbox's line, and the question before it is
 * removed. */
export function writeWhat(w: WriteLike): string {
  return Object.hasOwn(writeWhats, w.kind) ? writeWhats[w.kind as WriteKindCode](w) : 'A change';
}

/** writeRefused says, of a change the engine turned down (a parked
 * view.Write), which engine (engine "remote" or "local", app.OutboxStatus's
 * engine), why, from its code, and what Dad can do. The engine's own text
 * is only ever the detail behind "Details". */
export function writeRefused(code: string, engine: string, kind = '', owner = ''): string {
  const head = `${engine === 'remote' ? 'The family engine' : 'Spark’s engine on this computer'} turned this down, so it was not sent.`;
  switch (code) {
    case engineError.unknownMoment:
    case engineError.notFound:
    case engineError.momentDeleted:
      return `${head} The moment it belongs to is no longer there: it was deleted, perhaps on another computer. You can remove it from this list.`;
    case engineError.momentPurged:
      return `${head} The moment it belongs to was deleted more than 30 days ago and has been removed for good, so it can’t be changed. If you want to keep what you wrote, copy it from this list first; then remove it.`;
    case engineError.forbidden:
      if (owner) return `${head} ${othersWords(kind, owner)} Whoever looks after Spark can too; you can remove this change from this list.`;
      if (kind === writeKind.unkeep) return `${head} The phrase was kept by another family member, and only they can remove it. Whoever looks after Spark can too; you can remove this change from this list.`;
      return `${head} The moment was added by another family member, and only they can change it. Whoever looks after Spark can too; you can remove it from this list.`;
    case appError.badPhrase:
    case engineError.badText:
      return `${head} These words can’t be kept as a phrase. Remove it from this list, then keep fewer words.`;
  }
  if (tooLong.has(code)) return `${head} It is too long to keep. Remove it from this list, then make it shorter and save it again.`;
  return `${head} Send it again once that is sorted out, or remove it.`;
}

/** othersWords says whose a change Dad made was to make (owner, the
 * member view.Write's owner names): the phrase's keeper for a removal, the
 * moment's for any other change. */
function othersWords(kind: string, owner: string): string {
  const who = memberName(owner);
  return kind === writeKind.unkeep ? `${who} kept this phrase, and only ${who} can remove it.` : `${who} added this moment, and only ${who} can change it.`;
}

/** writeTurnedDown says why a change of Dad's waits after the engine
 * turned it down as another family member's to make (view.Write's owner,
 * set while it waits to be tried again). */
export function writeTurnedDown(kind: string, owner: string): string {
  return `Not sent yet: ${othersWords(kind, owner)} Whoever looks after Spark can too. Spark tries again on its own.`;
}

/** WaitCode says why a photo waits after trouble (app.Entry's wait),
 * generated from app/outboxapi.go's Wait codes. */
export type WaitCode = PhotoWaitCode;

/** waitWords says why a photo waits, and that Spark tries again on its
 * own (when: "in about a minute", or ""). */
export function waitWords(code: string, when: string): string {
  const again = `Spark tries again on its own${when ? `, ${when}` : ''}.`;
  switch (code as WaitCode) {
    case photoWait.network:
      return `Not sent yet: where your moments are kept can’t be reached right now. ${again}`;
    case photoWait.refused:
      return 'Waiting: the family engine did not accept Spark’s key.';
    case photoWait.forbidden:
      return `Not sent yet: this was added by another family member, and only they can change it. Whoever looks after Spark can too. ${again}`;
    case photoWait.tooManyReadings:
      return `Not sent yet: you have asked Pippa for more readings than the family engine allows for now (just now, or today). ${again}`;
    case photoWait.outbox:
      return `Not sent yet: Spark can’t use its outbox on this computer right now. ${again}`;
    case photoWait.failed:
      return `Not sent yet: sending failed. ${again}`;
    case photoWait.busy:
      return `Not sent yet: where your moments are kept is busy. ${again}`;
  }
  return `Not sent yet. ${again}`;
}

/** parkedAdvice says, for a capture the engine refused, what the person
 * can do, and which action can work: retrying only helps when something
 * changed on the engine's side. */
/** writeMain is the Outbox's main button for a change the engine turned
 * down: "Send again", unless sending again can't help because the moment
 * it belongs to is gone, when removing it from the list is what is left. */
export function writeMain(code: string): 'retry' | 'remove' {
  switch (code) {
    case engineError.unknownMoment:
    case engineError.notFound:
    case engineError.momentDeleted:
    case engineError.momentPurged:
      return 'remove';
  }
  return 'retry';
}

export function parkedAdvice(code: string): { sentence: string; main: 'save' | 'retry' } {
  switch (code) {
    case engineError.mediaTooLarge:
      return {
        sentence: 'This photo is too large to be accepted where your moments are kept, so sending it again will not help. Save the original somewhere safe. If whoever looks after Spark raises the limit, press “Send again”.',
        main: 'save',
      };
    case outboxProblem.missingFile:
      return {
        sentence: 'The copy of this photo that Spark keeps on this computer to send is gone from its folder. If you moved it, put it back and press “Send again”; otherwise remove it from this list and add the photo again.',
        main: 'retry',
      };
    case outboxProblem.unreadableFile:
      return {
        sentence: 'Spark can’t read the copy of this photo it keeps on this computer to send. If you changed Spark’s folder, undo that and press “Send again”; otherwise remove it from this list and add the photo again.',
        main: 'retry',
      };
    case outboxProblem.changedFile:
      return {
        sentence: 'The copy of this photo that Spark keeps on this computer to send has changed since the photo was added. If you put an older copy of Spark’s folder back, put the right one back and press “Send again”; otherwise remove it from this list and add the photo again.',
        main: 'retry',
      };
    case engineError.momentPurged:
      return {
        sentence: 'This photo’s moment was deleted more than 30 days ago and has been removed for good, so it can’t be sent. If you want the photo, save the original somewhere safe; then remove it from this list.',
        main: 'save',
      };
    case engineError.unknownMoment:
    case engineError.mediaConflict:
    case engineError.requestIdReused:
    case engineError.badMediaRef:
      return { sentence: 'This photo was not accepted where your moments are kept. Save the original somewhere safe; then you can remove it from this list and add it again.', main: 'save' };
    default:
      return { sentence: 'This photo was not accepted where your moments are kept. Press “Send again”; if it is refused again, save the original somewhere safe.', main: 'retry' };
  }
}

/** cardRefused is the short reason on an Add photos card whose photo the
 * engine refused, from the outbox event's code. */
export function cardRefused(code: string): string {
  if (code === engineError.mediaTooLarge) return 'Not sent: this photo is too large to be accepted.';
  return 'Not sent: it was not accepted.';
}

/** Tally is how many photos, notes and other changes there are of
 * something in the outbox (app.Tally): the words the Outbox uses, a note
 * being a note and every other write (a caption, a date, a kept phrase, a
 * reading asked for) a change. */
export interface Tally {
  photos: number;
  notes: number;
  changes: number;
}

/** plural says a count with its noun: "1 photo", "2 photos". */
/**
 * sizeWords writes a size as people read it ("3.2 MB", "512 bytes"). It
 * gives what the outbox's FormatSize gives the spark command, character
 * for character: both are checked against test/testdata/sizes.json.
 */
export function sizeWords(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(1)} GB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(0)} KB`;
  return n === 1 ? '1 byte' : `${n} bytes`;
}

/** sentWords says how much of a photo the engine holds: "12.0 MB of 34.0 MB sent". */
export const sentWords = (sent: number, size: number): string => `${sizeWords(sent)} of ${sizeWords(size)} sent`;

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** total is how many a tally counts. */
export function total(t: Tally): number {
  return t.photos + t.notes + t.changes;
}

/** tallyWords names what a tally counts: "2 photos", "1 change",
 * "2 photos, 1 note and 3 changes"; "" when it counts nothing. Every
 * sentence that says what waits in the outbox names it with this. */
export function tallyWords(t: Tally): string {
  const parts = [
    t.photos ? plural(t.photos, 'photo', 'photos') : '',
    t.notes ? plural(t.notes, 'note', 'notes') : '',
    t.changes ? plural(t.changes, 'change', 'changes') : '',
  ].filter(Boolean);
  const last = parts.pop() ?? '';
  return parts.length ? `${parts.join(', ')} and ${last}` : last;
}

/** OutboxLine is what the window says of the outbox outside the Outbox
 * screen: the offline banner's sentence, the status bar's waiting item
 * and its "needs you" item ("" when there is nothing to say). It and the
 * Outbox screen's summary (outboxSummary) are worded from one
 * app.OutboxStatus (outbox.ts), so they always agree. */
export interface OutboxLine {
  banner: string;
  waiting: string;
  parked: string;
}

/** outboxLine words what waits (not parked) and what is parked (waits
 * for Dad), from one OutboxStatus's tallies. "Everything sent" is said
 * only when nothing waits and nothing is parked, and only of the family
 * engine (allThere). While the engine answers
 * (answers), what waits is being sent: the bar says "Sending …", never
 * "waiting" beside an engine that answers (issue 36). */
export function outboxLine(waiting: Tally, parked: Tally, answers: boolean, engine: string): OutboxLine {
  const n = total(waiting);
  const p = total(parked);
  const what = tallyWords(waiting);
  return {
    banner: n
      ? `${what} ${n === 1 ? 'is' : 'are'} waiting safely on this computer and will be sent on ${n === 1 ? 'its' : 'their'} own when it is back.`
      : 'Anything you add waits safely on this computer and is sent on its own when it is back.',
    waiting: n ? (answers ? `Sending ${what}…` : `${what} waiting to be sent`) : p ? '' : allThere(engine),
    parked: p ? `${tallyWords(parked)} ${p === 1 ? 'needs' : 'need'} you` : '',
  };
}

/** allThere is the status bar's word when nothing waits and nothing
 * needs Dad: "sent" only to the family engine, beside the bar's "Kept on
 * the family engine"; on this computer nothing is sent, and the bar's
 * "Kept on this computer" says it all (issue 36). */
function allThere(engine: string): string {
  return engine === 'remote' ? 'Everything sent' : '';
}

/** outboxSummary is the Outbox screen's first line, from the same tallies
 * as outboxLine. */
export function outboxSummary(waiting: Tally, parked: Tally, engine: string): string {
  const n = total(waiting);
  const p = total(parked);
  if (n + p === 0) return engine === 'remote' ? 'Everything is sent to the family engine. Nothing is waiting.' : 'Everything is kept on this computer. Nothing is waiting.';
  return [
    n ? `${tallyWords(waiting)} ${n === 1 ? 'is' : 'are'} on the way, safe on this computer until then.` : '',
    p ? `${tallyWords(parked)} ${p === 1 ? 'needs' : 'need'} you to decide what to do.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** engineBanner is the banner's words when the engine is away: why (the
 * family engine, or this computer's own, does not answer, or the family
 * engine refused Spark's key), and, when refused, the words of the link
 * to Settings ("" otherwise). outboxLine's banner follows. */
export function engineBanner(engine: string, refused: boolean): { why: string; link: string } {
  if (refused) return { why: 'The family engine did not accept Spark’s key.', link: 'Paste its connection text again in Settings' };
  return { why: engine === 'remote' ? 'The family engine can’t be reached right now.' : 'Spark’s own engine on this computer isn’t answering right now.', link: '' };
}

/** EngineState is the status bar's state of the engine. */
export type EngineState = 'starting' | 'connected' | 'refused' | 'offline';

/** engineStateWords is the status bar's first item: where moments are
 * kept (engine "remote" or "local"), and whether it answers. */
export function engineStateWords(state: EngineState, engine: string): string {
  const where = engine === 'remote' ? 'Kept on the family engine' : 'Kept on this computer';
  switch (state) {
    case 'starting':
      return startWords(true);
    case 'refused':
      return `${where}, which did not accept Spark’s key`;
    case 'offline':
      return `${where}, which can’t be reached right now`;
  }
  return where;
}

/** engineStateShort is the status bar's first item in a narrow window
 * (200% zoom), where the bar keeps to one line and the banner says why. */
export function engineStateShort(state: EngineState, engine: string): string {
  const remote = engine === 'remote';
  switch (state) {
    case 'starting':
      return startWords(true);
    case 'refused':
      return 'Key not accepted';
    case 'offline':
      return remote ? 'Can’t reach the family engine' : 'Engine not answering';
  }
  return remote ? 'On the family engine' : 'On this computer';
}

/** bannerDetails opens the rest of the one-line banner (narrow window). */
export const bannerDetails = 'Details';

/** startWords is the heading while Spark starts, or when it could not. */
export function startWords(starting: boolean): string {
  return starting ? 'Spark is starting…' : 'Spark could not start';
}

/** badgeWords is the Outbox count in words: beside "Menu" in a narrow
 * window (menu), and what a screen reader hears of the Outbox tab's
 * badge (label); "" when nothing waits. */
export function badgeWords(waiting: number, parked: number): { menu: string; label: string } {
  const needs = parked ? `${parked} need${parked === 1 ? 's' : ''} you` : '';
  return {
    menu: [waiting ? `${waiting} to send` : '', needs].filter(Boolean).join(', '),
    label: [waiting ? `${waiting} waiting to be sent` : '', needs].filter(Boolean).join(', '),
  };
}

/** MoveLike is what moveWords reads of an app.MoveView. */
export interface MoveLike {
  way: string;
  lacking: number;
  running: boolean;
  finished: boolean;
  stop: string;
  refused: number;
}

/** MoveWords are the words of bringing moments along: the offer, its
 * button and hint (when moments are lacking), what it is doing or how it
 * went (message), and what may be done while it runs (going). */
export interface MoveWords {
  offer: string;
  button: string;
  hint: string;
  message: string;
  going: string;
}

/** moveWords words bringing moments along (app.MoveView) from the way it
 * goes ("to_family" or "here"), how many moments are lacking, and why it
 * stopped (codes.ts's moveStop). */
export function moveWords(v: MoveLike): MoveWords {
  const here = v.way === 'here';
  const n = v.lacking;
  const what = n === 1 ? 'moment' : 'moments';
  const w: MoveWords = {
    offer: '',
    button: '',
    hint: '',
    message: '',
    going: 'You can keep using Spark or close it; press the button again later to go on from where it stopped.',
  };
  if (n > 0 && here) {
    // "doesn't" as the browser tests read it.
    w.offer = `The family engine has ${n} ${what} this computer doesn't.`;
    w.button = n === 1 ? 'Bring it here' : 'Bring them here';
    w.hint = 'They stay on the family engine too. Readings Pippa already gave come along as they are.';
  } else if (n > 0) {
    w.offer = `The family engine does not have ${n} ${what} that ${n === 1 ? 'is' : 'are'} kept on this computer.`;
    w.button = `Bring my ${n} ${what} along`;
    w.hint = 'They stay on this computer too. Readings Pippa already gave come along as they are.';
  }
  if (v.running) {
    w.message = here ? 'Bringing the family engine’s moments here…' : 'Bringing your moments along…';
  } else if (v.finished) {
    w.message = here ? 'All your moments are on this computer now. They are still on the family engine too.' : 'All your moments are on the family engine now. They are still on this computer too.';
  } else {
    switch (v.stop) {
      case moveStop.cantCount:
        w.message = 'Spark can’t tell right now which moments the family engine lacks.';
        break;
      case moveStop.cantRead:
        w.message = 'Spark can’t read the moments to bring along.';
        break;
      case moveStop.incomplete:
        w.message = `${here ? 'This computer' : 'The family engine'} took everything but ${plural(v.refused, 'thing', 'things')}. Press the button again to try those again.`;
        break;
      case moveStop.stopped:
        w.message = 'Spark stopped bringing your moments along. Press the button again to go on from where it stopped.';
        break;
    }
  }
  return w;
}

/** leftoversWords is Settings' sentence about the outbox's files not
 * removed from this computer yet (app.Leftovers' counts), without paths;
 * "" when there are none. The spark command says the same
 * (cmd/spark/words.go leftoversWords). */
export function leftoversWords(l: { sent: number; discarded: number; interrupted: number }): string {
  const n = l.sent + l.discarded + l.interrupted;
  if (n === 0) return '';
  const parts = [
    l.sent ? `${plural(l.sent, 'photo', 'photos')} already sent` : '',
    l.discarded ? `${plural(l.discarded, 'photo', 'photos')} you discarded` : '',
    l.interrupted ? `${plural(l.interrupted, 'copy', 'copies')} left from an import that was interrupted` : '',
  ].filter(Boolean);
  const last = parts.pop() ?? '';
  const what = parts.length ? `${parts.join(', ')} and ${last}` : last;
  return `${what} could not be removed from this computer yet (a program may have ${n === 1 ? 'it' : 'them'} open). Spark tries again on its own.`;
}

/** soon says when a time to come is, roughly ("in about 2 minutes"). */
export function soon(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.round((t - now) / 1000);
  if (s < 10) return 'in a moment';
  if (s < 60) return 'in less than a minute';
  const m = Math.round(s / 60);
  if (m < 60) return m === 1 ? 'in about a minute' : `in about ${m} minutes`;
  const h = Math.round(m / 60);
  return h === 1 ? 'in about an hour' : `in about ${h} hours`;
}

/** firstLines shortens a reading to about n characters, at a word. */
export function firstLines(text: string, n = 180): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  const cut = t.slice(0, n);
  const sp = cut.lastIndexOf(' ');
  return `${(sp > n * 0.6 ? cut.slice(0, sp) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

const wordChar = /[\p{L}\p{N}'’_-]/u;

/** wordRange widens [start, end) of text to whole words: a selection that
 * begins or ends inside a word takes the whole word, and spaces and
 * punctuation at its edges are dropped. An empty range is [n, n]. */
export function wordRange(text: string, start: number, end: number): [number, number] {
  let s = Math.max(0, Math.min(start, end));
  let e = Math.min(text.length, Math.max(start, end));
  const w = (i: number) => wordChar.test(text[i] ?? '');
  while (s < e && !w(s)) s++;
  while (e > s && !w(e - 1)) e--;
  if (s >= e) return [s, s];
  while (s > 0 && w(s - 1)) s--;
  while (e < text.length && w(e)) e++;
  // A word's own hyphens and apostrophes stay; at the edges they go.
  while (s < e && /['’_-]/.test(text[s] ?? '')) s++;
  while (e > s && /['’_-]/.test(text[e - 1] ?? '')) e--;
  return [s, e];
}

// The off-site copy (app/offsite.go): a second copy of the moments away
// from this computer, on an external disk or with a storage provider,
// kept by the engine and told by its health (engine/api BackupHealth).

/** BackupLike is what these words read of an engine's BackupHealth
 * (backend.ts' BackupHealth): times are RFC 3339. */
export interface BackupLike {
  state: string;
  problem?: string;
  shipped_at?: string;
  behind_since?: string;
  check?: { at: string; ok: boolean; moments: number; bytes: number };
}

/** offsiteWords are the Off-site copy section's labels and fixed words. */
export const offsiteWords = {
  legend: 'Off-site copy',
  why: 'A second copy of your moments, kept away from this computer: if it breaks, is lost or is stolen, your moments can be brought back from the copy. Spark keeps it up to date on its own, every few seconds.',
  folderChoice: 'An external disk or folder',
  providerChoice: 'A storage provider',
  providerHint: 'A company that keeps files for you, such as Backblaze or Wasabi. It gives you an address, a bucket, a key id and a secret.',
  folder: 'Folder',
  choose: 'Choose…',
  chooseTitle: 'Choose the folder for the off-site copy',
  address: 'Address',
  bucket: 'Bucket',
  bucketHint: 'The bucket’s name; a folder in it may follow after a slash, as in family-photos/spark.',
  keyId: 'Key id',
  secret: 'Secret',
  test: 'Test',
  testing: 'Testing…',
  save: 'Save',
  turnOff: 'Turn off',
  turnOffTitle: 'Turn off the off-site copy?',
  turnOffBody: 'Spark stops updating the copy. What it holds stays where it is; nothing is deleted.',
  saved: 'Saved. Spark is making the off-site copy now, and keeps it up to date.',
  turnedOff: 'The off-site copy is turned off. What it holds stays where it is.',
  notSet: 'There is no off-site copy yet. Choose where to keep one below.',
  recovery: 'Recovery text',
  recoveryHint: 'Print this, or copy it somewhere safe away from this computer. With it, your moments can be brought back from the copy on a new computer.',
  print: 'Print',
  copy: 'Copy',
  copied: 'Copied. Keep it somewhere safe, away from this computer.',
  familyLooksAfter: 'Whoever runs the family engine looks after its off-site copy: tell them if this says something is wrong.',
  familyNone: 'The family engine does not keep an off-site copy. Whoever runs it can set one up.',
  familyAway: 'The family engine can’t be reached right now, so Spark can’t tell how its off-site copy stands.',
  whatToDo: 'What to do',
} as const;

/** grouped writes a count with thousands grouped: 14,302. */
const grouped = new Intl.NumberFormat('en');

/** roundSize writes a large size as a round number ("41 GB"), a small one
 * as sizeWords does. */
export function roundSize(n: number): string {
  if (n >= 10 * 1024 ** 3) return `${grouped.format(Math.round(n / 1024 ** 3))} GB`;
  return sizeWords(n);
}

/** ago says how long ago a time was, roughly ("2 minutes ago"). */
export function ago(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return m === 1 ? 'a minute ago' : `${m} minutes ago`;
  const h = Math.round(m / 60);
  if (h < 24) return h === 1 ? 'an hour ago' : `${h} hours ago`;
  const d = Math.round(h / 24);
  return d === 1 ? 'a day ago' : `${d} days ago`;
}

const weekday = new Intl.DateTimeFormat('en', { weekday: 'long' });
const day = new Intl.DateTimeFormat('en', { day: 'numeric', month: 'long' });

/** dayPart says when in the days around now a time was: "this morning",
 * "yesterday", "on Tuesday", "on 3 December". */
export function dayPart(iso: string, now = Date.now()): string {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return '';
  const today = new Date(now);
  today.setHours(0, 0, 0, 0);
  const days = Math.round((today.getTime() - new Date(t).setHours(0, 0, 0, 0)) / 86_400_000);
  if (days <= 0) {
    const hour = t.getHours();
    return hour < 12 ? 'this morning' : hour < 18 ? 'this afternoon' : 'this evening';
  }
  if (days === 1) return 'yesterday';
  if (days < 7) return `on ${weekday.format(t)}`;
  return `on ${day.format(t)}`;
}

/** offsiteAdvice says what is wrong with the copy and what to do, by its
 * problem (codes.ts' backupProblem) and where it is kept (kind: codes.ts'
 * offsiteKind; "" for the family engine's, which Dad does not look
 * after). */
export function offsiteAdvice(problem: string, kind: string): string {
  const folder = kind === offsiteKind.folder;
  const provider = kind === offsiteKind.provider;
  let what: string;
  switch (problem) {
    case backupProblem.unreachable:
      what = folder
        ? 'Spark can’t find the disk or folder that holds the copy. Plug the disk back in (or connect the shared folder); Spark goes on by itself once it is back.'
        : provider
          ? 'Spark can’t reach the storage provider. Check that this computer is on the internet; Spark tries again on its own.'
          : 'The place of the copy can’t be reached.';
      break;
    case backupProblem.denied:
      what = folder
        ? 'Spark is not allowed to write in the copy’s folder. Choose another folder below.'
        : provider
          ? 'The storage provider refused Spark’s key. Check the key id and the secret below, press Test, then Save.'
          : 'The place of the copy refused the family engine’s key.';
      break;
    case backupProblem.gone:
      what = folder
        ? 'The copy’s folder was emptied or removed. Spark sends everything again once the folder is there; if you moved it, choose its new place below.'
        : provider
          ? 'The bucket holding the copy was emptied or removed. If you emptied it, Spark is sending everything again; if the bucket is gone, make it again at the storage provider, or choose another place below.'
          : 'The copy was emptied or removed.';
      break;
    case backupProblem.full:
      what = folder
        ? 'The disk is full. Free some space on it, or choose another disk below.'
        : provider
          ? 'The storage provider says there is no room left. Add room to your plan there, or choose another place below.'
          : 'The place of the copy is full.';
      break;
    case backupProblem.damaged:
      what = kind
        ? 'The check found the copy damaged. Choose a new place for it below (an empty folder, or a new bucket): Spark then makes a whole new copy there.'
        : 'The check found the copy damaged.';
      break;
    case backupProblem.noKey:
      what = kind
        ? 'The copy there is locked with a key this computer does not have. Choose a new place for it below: Spark then makes a new copy there.'
        : 'The copy is locked with a key the family engine does not have.';
      break;
    default:
      what = kind
        ? 'Something went wrong with the copy (the details below help whoever looks after Spark). Spark tries again on its own.'
        : 'Something went wrong with the copy.';
  }
  return kind ? what : `${what} ${offsiteWords.familyLooksAfter}`;
}

/** OffsiteStatus is what the window says of an off-site copy: the status
 * line, what to do ("" when all is well), and whether it needs someone. */
export interface OffsiteStatus {
  line: string;
  advice: string;
  trouble: boolean;
}

/** offsiteStatusWords words how a copy stands (an engine's BackupHealth),
 * kept where kind says ("" for the family engine's): "Off-site copy
 * checked this morning: 14,302 moments, 41 GB, last shipped 2 minutes
 * ago." The line is "" when there is no copy. */
export function offsiteStatusWords(h: BackupLike | null | undefined, kind: string, now = Date.now()): OffsiteStatus {
  if (!h) return { line: '', advice: '', trouble: false };
  const shipped = h.shipped_at ? `last shipped ${ago(h.shipped_at, now)}` : '';
  const c = h.check;
  switch (h.state) {
    case backupState.current:
      if (c && c.ok) {
        return { line: `Off-site copy checked ${dayPart(c.at, now)}: ${grouped.format(c.moments)} ${c.moments === 1 ? 'moment' : 'moments'}, ${roundSize(c.bytes)}, ${shipped}.`, advice: '', trouble: false };
      }
      return { line: `Off-site copy up to date, ${shipped}.`, advice: '', trouble: false };
    case backupState.catchingUp:
      return {
        line: h.shipped_at
          ? `Off-site copy: Spark is bringing it up to date (it was last complete ${ago(h.shipped_at, now)}).`
          : 'Off-site copy: Spark is making the first copy. This can take a while with many photos; it goes on by itself.',
        advice: '',
        trouble: false,
      };
    case backupState.checkFailed:
      return { line: `The check of the off-site copy ${c ? dayPart(c.at, now) + ' ' : ''}found a problem.`, advice: offsiteAdvice(h.problem ?? '', kind), trouble: true };
  }
  return {
    line: h.shipped_at ? `The off-site copy can’t be updated: ${shipped}.` : 'The off-site copy can’t be made yet.',
    advice: offsiteAdvice(h.problem ?? '', kind),
    trouble: true,
  };
}

/** dayMs is a day, in milliseconds. */
const dayMs = 86_400_000;
/** failingWait is how long the copy fails before the status bar speaks:
 * a disk unplugged for a moment is not worth a word. */
export const failingWait = 5 * 60_000;

/** offsiteBarWords is the status bar's line about the off-site copy of
 * the engine in use, "" while there is nothing to say: it speaks when
 * the copy is more than a day behind, failing for more than a few
 * minutes (failingSince: app.Status' backup_failing_since), or its check
 * found a problem. */
export function offsiteBarWords(h: BackupLike | null | undefined, failingSince: string, now = Date.now()): string {
  if (!h) return '';
  const behind = h.behind_since ? now - Date.parse(h.behind_since) : 0;
  if (behind > dayMs) {
    const days = Math.floor(behind / dayMs);
    return `The off-site copy is ${days === 1 ? 'a day' : `${days} days`} behind`;
  }
  if (h.state === backupState.checkFailed) return 'The check of the off-site copy found a problem';
  const since = failingSince ? Date.parse(failingSince) : NaN;
  if (h.state === backupState.failing && !Number.isNaN(since) && now - since > failingWait) return 'The off-site copy isn’t being updated';
  return '';
}

/** offsiteTestWords words how a test of a place for the copy went
 * (app.OffsiteTestResult, or a SetOffsite refused: codes.ts'
 * offsiteTest, or a backupProblem), kind being the place's. */
export function offsiteTestWords(code: string, kind: string): string {
  const folder = kind === offsiteKind.folder;
  switch (code) {
    case offsiteTest.ok:
      return 'It works: Spark can keep the copy there. Press Save to start it.';
    case offsiteTest.noKind:
      return 'Choose an external disk or folder, or a storage provider.';
    case offsiteTest.noFolder:
      return 'Choose the folder for the copy: “Choose…” shows your disks and folders.';
    case offsiteTest.notFolder:
      return 'That is a file, not a folder. Choose a folder.';
    case offsiteTest.noPlace:
      return 'That place isn’t there. If it is on an external disk, plug the disk in, then press Test again.';
    case offsiteTest.insideData:
      return 'That folder is inside Spark’s own folder on this computer, so it would be lost with it. Choose a folder on an external disk.';
    case offsiteTest.noAddress:
      return 'Enter the storage provider’s address: it starts with https://.';
    case offsiteTest.noBucket:
      return 'Enter the name of the bucket.';
    case offsiteTest.noKeyId:
      return 'Enter the key id and the secret the storage provider gave you.';
    case offsiteTest.otherCopy:
      return 'That place already holds another Spark’s copy. Choose an empty folder or bucket.';
    case backupProblem.unreachable:
      return folder
        ? 'Spark can’t reach that folder. Plug the disk in (or connect the shared folder), then press Test again.'
        : 'The storage provider doesn’t answer at that address. Check the address, and that this computer is on the internet.';
    case backupProblem.denied:
      return folder ? 'Spark is not allowed to write in that folder. Choose another one.' : 'The storage provider refused the key. Check the key id and the secret.';
    case backupProblem.gone:
      return folder ? 'That folder isn’t there. Choose another one.' : 'There is no bucket by that name. Check its name, or make the bucket at the storage provider first.';
    case backupProblem.full:
      return 'There is no room left there. Free some space, or choose another place.';
    case backupProblem.damaged:
    case backupProblem.noKey:
      return 'What is there can’t be read as a Spark copy. Choose an empty folder or bucket.';
  }
  return 'Spark can’t keep the copy there (the details below say why). Try another place.';
}

/** RecoveryLike is what recoveryWords reads of an app.Recovery. */
export interface RecoveryLike {
  place: string;
  address: string;
  key_id: string;
  key: string;
}

/** shellWord writes s as one word of a shell command: quoted when it
 * holds a space or another character the shell reads. */
function shellWord(s: string): string {
  return /^[\w/:.@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** keyGroups writes a key after its AGE-SECRET-KEY-1 prefix in groups of
 * four characters, as people copy long codes by hand. */
function keyGroups(key: string): string {
  const prefix = 'AGE-SECRET-KEY-1';
  const rest = key.startsWith(prefix) ? key.slice(prefix.length) : key;
  return [prefix, ...(rest.match(/.{1,4}/g) ?? [])].join(' ');
}

/** recoveryWords is the recovery text Dad prints: where the copy is, and
 * how to bring the moments back from it. */
export function recoveryWords(r: RecoveryLike, made = Date.now()): string {
  const lines = [
    'Spark: how to bring your moments back from the off-site copy',
    `Written ${when(new Date(made).toISOString())}.`,
    '',
    `Where the copy is: ${r.place}`,
  ];
  if (r.address) {
    lines.push(`At the storage provider: ${r.address}`, `Key id: ${r.key_id}`, 'The secret is not written here: the storage provider can make a new key if it is lost.');
  }
  if (r.key) {
    lines.push(
      '',
      'The copy is locked with this key. Without it nobody can open the copy, not even you; keep it secret.',
      'The key (it is one line):',
      r.key,
      'The same key in groups of four, to write by hand or type back:',
      keyGroups(r.key),
    );
  } else {
    lines.push('The copy is not locked with a key.');
  }
  lines.push(
    '',
    r.key
      ? 'To bring the moments back on a new computer: save this page there as a file named spark-key.txt (or type the key into one), install Spark and spark-engine, then run'
      : 'To bring the moments back on a new computer: install Spark and spark-engine, then run',
    ...(r.address ? [`  AWS_ACCESS_KEY_ID=${r.key_id} AWS_SECRET_ACCESS_KEY=THE_SECRET \\`] : []),
    `  spark-engine restore --from ${shellWord(r.place)}${r.address ? ` --backup-endpoint ${shellWord(r.address)}` : ''} --data NEW_EMPTY_FOLDER${r.key ? ' --key spark-key.txt' : ''}`,
    'and start Spark with that folder as its engine (or ask whoever helps you with Spark to do it with this page).',
  );
  return lines.join('\n');
}

// The words of each screen that were once written in the screen's own
// module: every sentence and label Dad reads is made in this file
// (test/sentences.test.ts keeps it so).

/** tabWords name the window's tabs (main.ts; its Tab type keys them). */
export const tabWords = {
  capture: 'Add photos',
  moments: 'Moments',
  phrases: 'Phrases',
  outbox: 'Outbox',
  settings: 'Settings',
} as const;

/** appWords are the window's own words around the screens (main.ts). */
export const appWords = {
  status: 'Status',
  brand: 'Spark',
  menu: 'Menu',
  searchPlaceholder: 'Search captions, readings, phrases…',
  searchLabel: 'Search your moments',
  skip: 'Skip to content',
};

/** callFailed is said of a failed call that has no code (feedback.ts). */
export const callFailed = 'Something went wrong. Try again.';

/** domWords are the words of the shared pieces: a toast, Details and a
 * confirming dialog (dom.ts). */
export const domWords = {
  dismissToast: 'Dismiss this message',
  details: 'Details',
  cancel: 'Cancel',
};

/** captureWords are the Add photos screen's words (capture.ts). */
export const captureWords = {
  title: 'Add photos',
  cards: 'Photos added',
  notePlaceholder: 'A few words about today…',
  keepNote: 'Keep this note',
  dropzone: 'Drop photos here',
  lead: 'Photograph a letter, a label or anything you want explained. Pippa reads each photo and tells you in plain words what it says; Spark keeps them so you can find them again.',
  dragOr: 'Drag photos from your computer onto this window, or:',
  choosePhotos: 'Choose photos…',
  importFolder: 'Import a folder…',
  pasteHint: 'You can also paste a picture here with Ctrl+V (⌘V on a Mac). Photos are safe on this computer the moment they appear below.',
  noteLabel: 'Or write a note',
  deleted: 'Deleted.',
  saving: 'Saving on this computer…',
  duplicate: 'Already in Spark, so it was not added twice.',
  safeHere: 'Safe on this computer. It is sent on its own when the connection is back.',
  seeWhatToDo: 'See what to do',
  writeFirst: 'Write something first.',
};

/** notAddedWords is the toast when photos of a batch could not be added (capture.ts). */
export function notAddedWords(failed: number): string {
  return `${plural(failed, 'photo', 'photos')} could not be added; the card says why.`;
}

/** alreadyAddedWords is the toast when photos of a batch were in Spark already (capture.ts). */
export function alreadyAddedWords(dup: number): string {
  return `${plural(dup, 'photo was', 'photos were')} already in Spark, so ${dup === 1 ? 'it was' : 'they were'} not added twice.`;
}

/** batchWords labels a batch's progress bar on Add photos (capture.ts). */
export function batchWords(finished: boolean, done: number, total: number): string {
  return finished ? `Added ${total} of ${total}` : `Adding ${done} of ${total}…`;
}

/** readingStatusWords name a reading's status on its pill (moment.ts). */
export const readingStatusWords: Record<ReadingStatusCode, string> = {
  waiting: 'Not sent yet',
  queued: 'Waiting for Pippa',
  running: 'Pippa is reading…',
  finished: 'Done',
  failed: 'Could not read',
};

/** statusWord is a reading's pill (moment.ts): its status's words, or
 * the status itself for one this UI does not know. */
export function statusWord(status: string): string {
  return (readingStatusWords as Record<string, string | undefined>)[status] ?? status;
}

/** readingModeWords head a reading by its mode (moment.ts). */
export const readingModeWords: Record<string, string> = {
  practical: 'Pippa’s reading',
  careful: 'Careful reading',
  recall: 'Quick recall',
};

/** modeWord heads a reading in the moment's dialog (moment.ts). */
export function modeWord(mode: string): string {
  return readingModeWords[mode] ?? 'Reading';
}

/** momentWords are the moment dialog's words (moment.ts). */
export const momentWords = {
  title: 'Moment',
  caption: 'Caption',
  yourNote: 'Your note',
  captionPlaceholder: 'Add a caption…',
  notePlaceholder: 'Write your note…',
  savedAsYouType: 'Saved as you type.',
  whatPippaSays: 'What Pippa says',
  close: 'Close',
  readOnceSent: 'Pippa will read it once it is sent from this computer.',
  noReading: 'No reading yet.',
  oneEarlier: 'One earlier reading',
  showLarge: 'Show the photo large',
  wordsInPhoto: 'Words in the photo',
  captionOnceSent: 'Not sent yet: you can add a caption once it reaches where your moments are kept.',
  delete: 'Delete…',
  useThis: 'Use this one',
  dismiss: 'Dismiss',
  lookingNow: 'Pippa is looking at it now. The reading shows here when it is ready.',
  askedOnceSent: 'Saved on this computer. Pippa is asked as soon as it is sent.',
  askCareful: 'Ask for a careful reading',
  carefulAsked: 'Careful reading asked',
  askCarefulAgain: 'Ask for another careful reading…',
  askedAgain: 'Pippa is asked to read it again. The new reading shows here.',
  tryAgain: 'Try again',
  saving: 'Saving…',
  savedHere: 'Saved on this computer ✓',
  saved: 'Saved ✓',
  notSaved: 'Not saved yet',
  readAgainOnceSent: 'Pippa will read it again once it is sent. It is saved on this computer.',
  readAgain: 'Pippa will read it again.',
  carefulLook: 'Pippa will take a careful look. It takes a little longer.',
  carefulAgainTitle: 'Ask for another careful reading?',
  carefulAgainBody: 'Pippa takes another careful look at this moment. The careful reading you have stays.',
  carefulAgainYes: 'Ask again',
  keepHint: 'To keep some of these words as a phrase, choose them with the arrow keys (hold Shift for more words), then press Enter.',
};

/** earlierWords is the summary over a moment's earlier readings (moment.ts). */
export function earlierWords(n: number): string {
  return n === 1 ? momentWords.oneEarlier : `${n} earlier readings`;
}

/** captionNotSavedWords is the toast when a caption could not be saved (moment.ts). */
export function captionNotSavedWords(sentence: string): string {
  return `Your caption is kept on this computer but not saved yet. ${sentence}`;
}

/** carefulAskedWords is announced when a careful reading waits to be sent (moment.ts). */
export function carefulAskedWords(waiting: string): string {
  return `Careful reading asked. ${waiting}`;
}

/** momentsWords are the Moments screen's words (moments.ts). */
export const momentsWords = {
  title: 'Moments',
  orderBy: 'Order the moments by',
  orderLabel: 'Order by',
  taken: 'Date taken',
  added: 'Date added',
  byTaken: 'Moments, by the date taken, newest first',
  byAdded: 'Moments, by the date added, newest first',
  notSent: 'Not sent yet',
  changeNotSent: 'Change not sent yet',
};

/** stepWords name an entry's steps on the Outbox (outbox.ts). */
export const stepWords: Record<StepCode, string> = {
  create: 'Moment made',
  copy: 'Small copy sent',
  turn: 'Pippa asked to read it',
  original: 'Full photo sent',
};

/** nowWords say on the Outbox what happens next, by the first step not done (outbox.ts). */
export const nowWords: Record<StepCode, string> = {
  create: 'Waiting to be sent.',
  copy: 'Sending a small copy…',
  turn: 'Asking Pippa to read it…',
  original: 'Sending the full photo…',
};

/** stepWord names a step on the Outbox, or says its name for one this UI does not know (outbox.ts). */
export function stepWord(name: string): string {
  return (stepWords as Record<string, string | undefined>)[name] ?? name;
}

/** nowWord says on the Outbox what happens next (outbox.ts). */
export function nowWord(name: string): string {
  return (nowWords as Record<string, string | undefined>)[name] ?? 'Almost done…';
}

/** outboxWords are the Outbox screen's buttons and lines (outbox.ts). */
export const outboxWords = {
  title: 'Outbox',
  writes: 'Notes and changes',
  sendNow: 'Send now',
  sendAllAgain: 'Send all again',
  sendAgain: 'Send again',
  removeFromList: 'Remove from this list…',
  sendingItAgain: 'Sending it again.',
  removeWriteTitle: 'Remove this from the list?',
  remove: 'Remove',
  removed: 'Removed from the list.',
  steps: 'Steps',
  saveOriginal: 'Save the original…',
  checkSettings: 'Check it in Settings',
  tryingNow: 'Trying to send now.',
  removeEntryBody: 'It is never sent, and Spark forgets it. To keep the photo, use “Save the original…” first.',
};

/** removeWriteWords asks before a note or change leaves the Outbox (outbox.ts). */
export function removeWriteWords(what: string): string {
  return `${what}: it is never sent, and Spark forgets it.`;
}

/** sendingAgainWords says on the Outbox that one photo is sent again (outbox.ts). */
export function sendingAgainWords(name: string): string {
  return `Sending ${name} again.`;
}

/** sendingAllWords says on the Outbox that all are sent again (outbox.ts). */
export function sendingAllWords(n: number): string {
  return n === 1 ? outboxWords.sendingItAgain : `Sending all ${n} again.`;
}

/** savedAsWords is the toast once an original is saved (outbox.ts). */
export function savedAsWords(path: string): string {
  return `Saved as ${path}.`;
}

/** removeEntryTitle asks before a photo leaves the Outbox (outbox.ts). */
export function removeEntryTitle(name: string): string {
  return `Remove ${name} from the list?`;
}

/** entryRemovedWords is the toast once a photo left the Outbox (outbox.ts). */
export function entryRemovedWords(name: string): string {
  return `${name} removed.`;
}

/** phraseBarWords are the bar's words over a selection in a reading (phrasebar.ts). */
export const phraseBarWords = {
  keep: 'Keep this phrase',
  notNow: 'Not now',
};

/** phraseKeptWords is the toast once a phrase is kept (phrasebar.ts). */
export function phraseKeptWords(text: string, waiting: string): string {
  return waiting ? `Kept “${text}”. You find it under Phrases. ${waiting}` : `Kept “${text}”. You find it under Phrases.`;
}

/** phrasesWords are the Phrases screen's words (phrases.ts). */
export const phrasesWords = {
  title: 'Phrases',
  screen: 'Phrases and recall',
  startRecall: 'Start a quick recall',
  recallHint: 'Keep a phrase or two first; then Pippa can weave them into a recall.',
  intro: 'Words you kept from Pippa’s readings. To keep some, select them in a reading and choose “Keep this phrase”.',
  recallHead: 'Quick recall',
  recallAbout: 'Pippa weaves a few of your kept phrases into a short reminder.',
  none: 'No kept phrases yet.',
  photo: 'Photo',
  remove: 'Remove',
  undo: 'Undo',
  asking: 'Asking Pippa…',
  notSent: 'Not sent yet',
  recallOnceSent: 'Pippa recalls your phrases as soon as it is sent.',
  recallOnWay: 'A quick recall is on its way',
  finished: 'Finished',
  couldNotRecall: 'Could not recall',
  recalling: 'Pippa is recalling…',
  openRecall: 'Open this recall',
};

/** removePhraseLabel names a phrase's Remove button (phrases.ts). */
export function removePhraseLabel(text: string): string {
  return `Remove “${text}”`;
}

/** phraseRemovedWords is the toast once a phrase is removed (phrases.ts). */
export function phraseRemovedWords(text: string): string {
  return `Removed “${text}”.`;
}

/** phraseBackWords is the toast once a removed phrase is back (phrases.ts). */
export function phraseBackWords(text: string): string {
  return `“${text}” is back.`;
}

/** searchWords are the search screen's words (search.ts). */
export const searchWords = {
  results: 'Search results',
  title: 'Search',
  searching: 'Searching…',
  keptPhrases: 'Kept phrases',
};

/** searchResultWords says what a search found (search.ts). */
export function searchResultWords(total: number, phrases: number, q: string): string {
  return total === 0 && phrases === 0
    ? `Nothing found for “${q}”. Try fewer words, or the start of a word.`
    : `${total === 0 ? 'No moments' : total === 1 ? 'One moment' : `${total}${total >= 100 ? '+' : ''} moments`} with “${q}”.`;
}

/** syncWords is the status bar's line for this computer's copy of the
 * family engine (syncstatus.ts), "" when there is nothing to say (the
 * engine on this computer). sending is how many things Dad made wait in
 * the outbox to be sent (the bar's other item says so): while any does,
 * this computer is not "Up to date" with the family engine, and the line
 * says nothing rather than that beside them. */
export function syncWords(s: { state: string; as_of: string }, sending = 0): string {
  switch (s.state as SyncStateCode) {
    case 'local':
      return '';
    case 'starting':
      return s.as_of ? `Checking the family engine for news (this computer has everything as of ${when(s.as_of)})` : 'Bringing your moments from the family engine to this computer…';
    case 'uptodate':
      return sending ? '' : 'Up to date';
    case 'offline':
      return s.as_of
        ? `Offline: showing what this computer has, as of ${when(s.as_of)}`
        : 'Offline: this computer has none of the family engine’s moments yet; they come when it can be reached';
    case 'problem':
      return s.as_of ? `Not updating: showing what this computer has, as of ${when(s.as_of)} (see Settings)` : 'Not updating (see Settings)';
  }
  return '';
}

/** syncBarWords is syncWords in the status bar, where the link beside
 * it leads to Settings: without " (see Settings)" (syncstatus.ts). */
export function syncBarWords(s: { state: string; as_of: string }, sending = 0): string {
  return syncWords(s, sending).replace(' (see Settings)', '');
}

/** syncWhatToDo is the status bar's link to Settings when the copy stopped (syncstatus.ts). */
export const syncWhatToDo = 'What to do';

/** timelineWords are the Moments grid's headings and a tile's date (timeline.ts). */
export const timelineWords = {
  today: 'Today',
  thisWeek: 'This week',
  addedToday: (time: string) => `Added today, ${time}`,
  added: (date: string) => `Added ${date}`,
  todayAt: (time: string) => `Today, ${time}`,
};

/** viewerLabel names the photo viewer (viewer.ts). */
export const viewerLabel = 'Photo';

/** openSourceLabel names a phrase's picture button, which opens its
 * moment (phrases.ts); kind is the moment's kind word when the button
 * shows no picture. */
export function openSourceLabel(kind: string, what: string): string {
  return `${kind ? `${kind}: ` : ''}Open the moment it came from: ${what}`;
}

/** phraseSourceWords say where a kept phrase came from, after when it
 * was kept (phrases.ts). */
export const phraseSourceWords = {
  from: ' · from ',
  gone: ' · its moment was deleted',
};

/** wordsInPhotosWords are Settings' choice of the words in photos (issue
 * 37, settings.ts): looked for on this computer in a language, or not at
 * all. */
export const wordsInPhotosWords = {
  title: 'Words in photos',
  what: 'Spark looks for the words written in your photos (on letters, labels and signs), so that you can find a photo by them. It does this on this computer, without the internet.',
  readIn: (language: string): string => `Look for words in ${language}`,
  off: 'Off: don’t look for words in photos',
  savedIn: (language: string): string => `Saved: Spark looks for words in ${language} in your photos.`,
  savedOff: 'Saved: Spark no longer looks for words in new photos. The words it found already stay.',
  /** languageName: a language of the reader's data by its code ("eng"),
   * as Dad calls it; a code not known here is shown as it is. */
  languageName: (code: string): string =>
    ({ eng: 'English', fra: 'French', deu: 'German', spa: 'Spanish', ita: 'Italian', por: 'Portuguese', nld: 'Dutch', pol: 'Polish', ces: 'Czech', swe: 'Swedish', dan: 'Danish', nor: 'Norwegian', fin: 'Finnish', tur: 'Turkish', ell: 'Greek', rus: 'Russian', ukr: 'Ukrainian' } as Record<string, string>)[code] ?? code,
};
