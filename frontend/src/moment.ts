import { backend, type Alternative, type Moment, type Reading } from './backend';
import { h, clear, toast, when, confirmDialog, rehomeToasts, sentence, detailsOf, type Toast } from './dom';
import { toastError, explain } from './feedback';
import { intents } from './intents';
import { drafts, saveCaption, saving } from './captions';
import { onMoment, changed, deleted } from './store';
import { momentWords as W, statusWord, modeWord, earlierWords, captionNotSavedWords, carefulAskedWords, latest, readingError, kindWord, titleOf, sizeWords, fullPhotoWords, waitingWords, addedByWords, ownerOnlyWords, queuedWords, pippaMissing, pippaSetUp, pictureWords, dateNote, deletedWords, alternativeWords } from './words';
import { restoreMoment } from './deleted';
import { place, onPlace, openPippaSettings } from './place';
import { viewPhotos } from './viewer';
import { attachPhraseBar } from './phrasebar';
import { showing } from './onscreen';

/**
 * MomentDialog opens one moment: Pippa's latest reading first, then the
 * photo (click it for the viewer), the caption, earlier readings, a
 * careful reading on request, "Try again" on a failed one, delete, and
 * "Keep this phrase" for words selected in a reading. It follows the
 * moment's changes through the store (the Go side's "moment" events), so
 * a reading shows the moment Pippa finishes it.
 */
export class MomentDialog {
  private dlg = h('dialog', { class: 'moment-dialog', 'aria-labelledby': 'moment-title', 'data-testid': 'moment-dialog' });
  private title = h('h2', { id: 'moment-title' }, W.title);
  private body = h('div', { class: 'moment-body' });
  private keepBar = h('div', { class: 'keep-bar', hidden: true, 'data-testid': 'keep-bar' });
  private m: Moment | null = null;
  // The caption field lives as long as the dialog shows one moment, so a
  // redraw (a reading arriving) never takes it from under the typing.
  private caption = h('textarea', { id: 'caption', rows: 2, placeholder: W.captionPlaceholder, 'data-testid': 'caption' });
  private captionState = h('span', { class: 'caption-state muted', 'aria-live': 'polite', 'data-testid': 'caption-state' });
  private captionFor = '';
  // A note's text is its caption on the engine, but Dad wrote a note.
  private captionLabel = h('label', { for: 'caption' }, W.caption);
  private captionBox = h(
    'div',
    { class: 'caption-edit' },
    h('div', { class: 'row between' }, this.captionLabel, this.captionState),
    this.caption,
    h('p', { class: 'hint' }, W.savedAsYouType),
  );
  private readingSlot = h('section', { class: 'reading-first', 'aria-label': W.whatPippaSays, 'data-testid': 'readings' });
  private pictureSlot = h('div', { class: 'picture-slot' });
  private pendingSlot = h('div');
  private metaSlot = h('div');
  /** altSlot holds the captions kept beside this one (written on another
   * computer), each with "Use this one" and "Dismiss". */
  private altSlot = h('div', { 'data-testid': 'alternatives' });
  /** wordsSlot holds the words found in the photo. */
  private wordsSlot = h('div');
  /** shownCaption is the caption the field last took from the moment: what
   * Dad's typing starts from (the base of his draft, captions.ts). */
  private shownCaption = '';
  private actionsSlot = h('div');
  private captionTimer = 0;
  /** session counts the dialog's openings (of one moment each): a save's
   * late answer speaks only in the opening that started it. */
  private session = 0;
  /** list is the moments the dialog can step through (the viewer's next
   * and previous), set by whoever opened it. */
  private list: () => Moment[] = () => [];
  /** news is the toast of a reading asked for, which ends once the
   * reading shows (done tells). */
  private news: { toast: Toast; done: (m: Moment) => boolean } | null = null;
  /** focusNext is the control (its data-testid) that takes the keyboard at
   * the next redraw, where the one pressed is replaced. */
  private focusNext = '';

  constructor() {
    this.dlg.append(
      h('div', { class: 'row between dialog-head' }, this.title, h('button', { type: 'button', class: 'close', 'aria-label': W.close, onclick: () => this.close() }, '✕')),
      this.body,
      this.keepBar,
    );
    this.body.append(this.readingSlot, this.pictureSlot, h('div', { class: 'moment-side' }, this.pendingSlot, this.captionBox, this.altSlot, this.wordsSlot, this.metaSlot, this.actionsSlot));
    // The body scrolls, not the dialog (style.css): who watches the
    // dialog's scroll (the keep bar) hears the body's.
    this.body.addEventListener('scroll', () => this.dlg.dispatchEvent(new Event('scroll')), { passive: true });
    this.caption.addEventListener('input', () => this.typed());
    this.caption.addEventListener('blur', () => void this.flushCaption());
    this.dlg.addEventListener('close', () => {
      // Escape or ✕ while typing: the caption is saved all the same.
      void this.flushCaption();
      // The next opening starts afresh: the field, its state and the moment
      // come from what is current then, not from this time.
      this.session++;
      this.captionFor = '';
      this.captionState.textContent = '';
      this.m = null;
      showing('dialog', []);
      this.keepBar.hidden = true;
      rehomeToasts();
    });
    document.body.append(this.dlg);
    onMoment((e) => {
      if (e.kind === 'many' && this.m) {
        const id = this.m.id;
        void backend.moments.get(id).then((m) => this.m?.id === id && this.update(m), () => undefined);
        return;
      }
      if (!this.m || e.id !== this.m.id) return;
      if (e.kind === 'deleted') {
        this.close();
        return;
      }
      if (e.moment) this.update(e.moment);
    });
    // Pippa set up (or the engine changed): a reading that waits says so anew.
    onPlace(() => {
      if (this.dlg.open && this.m) this.render();
    });
  }

  /** open shows a moment (or the moment of an id, fetched first). */
  async open(m: Moment | string, list?: () => Moment[]): Promise<void> {
    if (list) this.list = list;
    if (typeof m === 'string') {
      try {
        m = await backend.moments.get(m);
      } catch (e) {
        toastError(e);
        return;
      }
    }
    if (this.captionFor !== m.id) {
      await this.flushCaption();
      this.session++;
      this.captionFor = m.id;
      // A caption typed earlier that could not be saved comes back.
      const draft = drafts.get(m.id);
      this.caption.value = draft ?? m.caption;
      this.shownCaption = m.caption;
      const note = m.kind === 'note';
      this.captionLabel.textContent = note ? W.yourNote : W.caption;
      this.caption.placeholder = note ? W.notePlaceholder : W.captionPlaceholder;
      this.captionState.textContent = '';
      if (draft !== undefined && draft !== m.caption && !m.pending) this.captionTimer = window.setTimeout(() => void this.flushCaption(), 0);
    }
    this.m = m;
    showing('dialog', [m.id]);
    this.render();
    if (!this.dlg.open) this.dlg.showModal();
    rehomeToasts();
    // The list's copy may be older than the engine's: fetch it once.
    const id = m.id;
    try {
      const fresh = await backend.moments.get(id);
      if (this.m?.id === id) this.update(fresh);
    } catch {
      // Offline: what the list had is shown.
    }
  }

  get current(): Moment | null {
    return this.m;
  }

  get isOpen(): boolean {
    return this.dlg.open;
  }

  close(): void {
    if (this.dlg.open) this.dlg.close();
  }

  /** update redraws on a change only, so that a selection in a reading
   * (for "Keep this phrase") survives events about other things. */
  private update(fresh: Moment): void {
    if (JSON.stringify(fresh) === JSON.stringify(this.m)) return;
    this.m = fresh;
    this.render();
  }

  private render(): void {
    const m = this.m;
    if (!m) return;
    // A redraw replaces the readings and the actions: the keyboard goes
    // back to the control it was on (or the one that took the place of
    // the button pressed), never to the page.
    const active = document.activeElement as HTMLElement | null;
    const refocus = this.focusNext || (active && active !== this.caption && this.body.contains(active) ? (active.dataset.testid ?? '') : '');
    this.renderBody(m);
    if (refocus) {
      const now = document.activeElement;
      if (!now || now === document.body || !this.dlg.contains(now)) this.body.querySelector<HTMLElement>(`[data-testid="${refocus}"]`)?.focus();
      this.focusNext = '';
    }
    if (this.news?.done(m)) {
      this.news.toast.end();
      this.news = null;
    }
  }

  private renderBody(m: Moment): void {
    this.dlg.dataset.momentId = m.id;
    const date = when(m.taken_at || m.created_at);
    // Not the file's name ("olympus_ep3_4032x3024.jpg"): that is in the line
    // under the photo, for whoever looks for the file.
    this.title.textContent = titleOf(m);
    const top = latest(m.readings);
    const older = m.readings.filter((r) => r !== top).reverse();
    clear(
      this.readingSlot,
      top ? this.reading(top, true) : h('p', { class: 'muted' }, m.pending ? W.readOnceSent : W.noReading),
      older.length
        ? h('details', { class: 'older' }, h('summary', {}, earlierWords(older.length)), h('ol', { class: 'readings' }, ...older.map((r) => this.reading(r, false))))
        : null,
      h('p', { class: 'hint keep-hint', id: 'keep-hint' }, keepHint),
    );
    const orig = m.original;
    const picture = m.thumb
      ? h(
          'figure',
          { class: 'picture' },
          h(
            'button',
            { type: 'button', class: 'picture-button', 'aria-label': W.showLarge, 'data-testid': 'open-viewer', onclick: () => this.openViewer() },
            h('img', { src: m.thumb, alt: titleOf(m), 'data-testid': 'moment-image' }),
          ),
          h('figcaption', { class: 'muted' },
            orig ? pictureWords.seeLarge : m.pending ? pictureWords.pending : fullPhotoWords(m.full_photo).dialog,
            // The full photo's kind and size, for whoever helps Dad.
            orig ? detailsOf(pictureWords.originalDetail(orig.content_type.replace('image/', '').toUpperCase(), sizeWords(orig.size))) : null),
        )
      : m.kind === 'note' || m.kind === 'recall'
        ? h('blockquote', { class: 'note-text' }, m.caption)
        : null;
    // Keep the photo's elements when it is the same photo, so it does not
    // flicker when a reading arrives.
    const shownThumb = this.pictureSlot.dataset.thumb ?? '';
    // (Its words change with what becomes of the full photo.)
    const full = orig ? 'here' : m.pending ? 'pending' : m.full_photo || 'sending';
    if (!(m.thumb && shownThumb === m.thumb && this.pictureSlot.dataset.original === full)) {
      clear(this.pictureSlot, picture);
      this.pictureSlot.dataset.thumb = m.thumb;
      this.pictureSlot.dataset.original = full;
    }
    this.body.classList.toggle('no-picture', picture === null);
    // The caption field stays where it is (never taken out of the page),
    // so a reading arriving while Dad types does not take his cursor.
    const caption = this.caption;
    // Nor do the words of a moment copy replace words still being saved.
    if (!drafts.has(m.id) && !saving(m.id) && document.activeElement !== caption) {
      caption.value = m.caption;
      this.shownCaption = m.caption;
    }
    const alternatives = (m.alternatives ?? []).filter((a) => a.caption !== m.caption);
    clear(
      this.altSlot,
      ...alternatives.map((a) => this.alternative(m, a)),
    );
    clear(
      this.wordsSlot,
      m.words
        ? h(
            'section',
            { class: 'photo-words', 'aria-label': W.wordsInPhoto, 'data-testid': 'photo-words' },
            h('h3', { class: 'small-heading' }, W.wordsInPhoto),
            // A reading's text for the keep bar (phrasebar.ts): words found
            // here can be kept as phrases too.
            h('p', { class: 'reading-text words-text', 'data-testid': 'words-text', tabindex: 0, 'aria-describedby': 'keep-hint' }, m.words),
          )
        : null,
    );
    // Another member's moment that Spark's key may not change offers no
    // caption to edit (its caption is the title), unless Dad was typing.
    this.captionBox.hidden = m.pending || m.kind === 'recall' || (m.owner_only && !drafts.has(m.id));
    const careful = !m.pending && m.kind === 'photo';
    clear(
      this.pendingSlot,
      m.pending
        ? h('p', { class: 'pill waiting', 'data-testid': 'moment-waiting' }, waitingWords(m.waits_for) || W.captionOnceSent)
        : m.waits_for
          ? h('p', { class: 'pill waiting', 'data-testid': 'moment-waiting' }, waitingWords(m.waits_for))
          : null,
    );
    clear(
      this.metaSlot,
      h('p', { class: 'muted meta' }, `${kindWord(m)} · ${date}${dateNote(m.kind, m.taken_at)}${m.name ? ` · ${m.name}` : ''}`),
      // Another family member's moment says whose it is; Dad's own, nothing.
      m.added_by ? h('p', { class: 'muted meta', 'data-testid': 'moment-added-by' }, addedByWords(m.added_by)) : null,
      m.owner_only ? h('p', { class: 'muted meta', 'data-testid': 'moment-owner-only' }, ownerOnlyWords(m.added_by)) : null,
    );
    clear(
      this.actionsSlot,
      m.pending
        ? null
        : h(
            'div',
            { class: 'row between actions' },
            careful ? this.carefulAction(m) : h('span'),
            // No Delete that could only be turned down (ownerOnly says why).
            m.owner_only ? null : h('button', { type: 'button', class: 'danger', onclick: () => void this.remove() }, W.delete),
          ),
    );
  }

  /** alternative is a caption written on another computer from the one
   * this was written from: Dad keeps one ("Use this one") or sets it
   * aside; neither loses the other's words until he chooses. */
  private alternative(m: Moment, a: Alternative): HTMLElement {
    const use = async (): Promise<void> => {
      await this.flushCaption();
      try {
        const got = await backend.moments.setCaption(m.id, a.caption, this.shownCaption);
        this.caption.value = got.caption;
        this.shownCaption = got.caption;
        changed(got);
      } catch (e) {
        toastError(e);
      }
    };
    const dismiss = async (): Promise<void> => {
      try {
        changed(await backend.moments.dismiss(m.id, a.caption));
      } catch (e) {
        toastError(e);
      }
    };
    return h(
      'div',
      { class: 'alternative', 'data-testid': 'alternative' },
      h('p', { class: 'muted' }, alternativeWords(a.written_by, a.written_at)),
      h('blockquote', { class: 'alternative-text', 'data-testid': 'alternative-text' }, a.caption),
      h(
        'div',
        { class: 'row' },
        h('button', { type: 'button', 'data-testid': 'use-alternative', onclick: () => void use() }, W.useThis),
        h('button', { type: 'button', class: 'quiet', 'data-testid': 'dismiss-alternative', onclick: () => void dismiss() }, W.dismiss),
      ),
    );
  }

  private reading(r: Reading, first: boolean): HTMLElement {
    const failed = r.status === 'failed';
    return h(
      first ? 'div' : 'li',
      { class: `reading ${r.status}${first ? ' first' : ''}`, 'data-testid': 'reading', 'data-status': r.status },
      h('div', { class: 'row between' }, h('strong', {}, modeWord(r.mode)), r.status === 'finished' ? null : h('span', { class: `pill status-${r.status}` }, statusWord(r.status))),
      // Focusable, so words can be chosen and kept from the keyboard (phrasebar.ts).
      r.text ? h('p', { class: 'reading-text', 'data-testid': 'reading-text', tabindex: 0, 'aria-describedby': 'keep-hint' }, r.text) : null,
      r.status === 'running' ? h('p', { class: 'muted' }, W.lookingNow) : null,
      r.status === 'queued' ? this.queued() : null,
      r.status === 'waiting' ? h('p', { class: 'muted' }, W.askedOnceSent) : null,
      failed ? sentence({ sentence: readingError(r.error_code), detail: r.error }) : null,
      failed && first && this.m && !this.m.pending ? this.againAction(this.m.id, r) : null,
    );
  }

  /** queued is the line under a reading that waits its turn: "soon"
   * only when the engine has a Pippa; else that she is not set up, with
   * "Set her up" where Dad can (issue 36). */
  private queued(): HTMLElement {
    const w = place();
    const missing = pippaMissing(w);
    if (!missing) return h('p', { class: 'muted' }, queuedWords(w));
    const link = pippaSetUp(w);
    return h(
      'p',
      { class: 'warn-text pippa-setup', 'data-testid': 'moment-no-pippa' },
      missing,
      link ? ' ' : null,
      link
        ? h('button', { type: 'button', class: 'link', 'data-testid': 'moment-setup', onclick: () => { this.close(); openPippaSettings(); } }, link)
        : null,
    );
  }

  /** announce shows a toast about this moment: it ends when done says
   * the news is done, or when the dialog is no longer on screen. */
  private announce(message: string, done: (m: Moment) => boolean): void {
    this.news?.toast.end();
    this.news = { toast: toast(message, 'info', '', undefined, { about: this.dlg }), done };
  }

  /** carefulAction is "Ask for a careful reading", or, once asked (the
   * same job however often it is pressed), what became of it and a
   * separate, deliberate "Ask for another careful reading…". */
  private carefulAction(m: Moment): HTMLElement {
    const key = carefulKey(m.id);
    if (!m.careful_asked && !intents.wasAsked(key)) {
      return h('button', { type: 'button', 'data-testid': 'ask-careful', onclick: (e: Event) => void this.careful(e.currentTarget as HTMLButtonElement) }, W.askCareful);
    }
    return h(
      'div',
      { class: 'careful-asked' },
      h('p', { class: 'pill', 'data-testid': 'careful-asked', tabindex: -1 }, W.carefulAsked),
      h('button', { type: 'button', class: 'link', 'data-testid': 'ask-careful-again', onclick: () => void this.carefulAgain() }, W.askCarefulAgain),
    );
  }

  /** againAction is "Try again" on a failed reading; once pressed, the
   * same request is kept (pressing again sends nothing new) and it says
   * so until the new reading shows. */
  private againAction(momentID: string, r: Reading): HTMLElement {
    const key = againKey(momentID, r.id);
    if (intents.wasAsked(key)) {
      return h('p', { class: 'muted', 'data-testid': 'asked-again', tabindex: -1 }, W.askedAgain);
    }
    return h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary', 'data-testid': 'try-again', onclick: (e: Event) => void this.tryAgain(r, e.currentTarget as HTMLButtonElement) }, W.tryAgain));
  }

  private openViewer(): void {
    const m = this.m;
    if (!m) return;
    const list = this.list().filter((x) => x.thumb);
    const at = list.findIndex((x) => x.id === m.id);
    viewPhotos({
      list: at >= 0 ? list : [m],
      index: Math.max(0, at),
      // Stepping through photos there leaves this dialog on the last one seen.
      closed: (last) => {
        if (this.isOpen && last.id !== this.m?.id) void this.open(last);
      },
    });
  }

  /** keepBar is the "Keep this phrase" offer (see phrasebar.ts). */
  get bar(): HTMLElement {
    return this.keepBar;
  }

  get dialog(): HTMLDialogElement {
    return this.dlg;
  }

  /** typed keeps the caption as a draft at once and saves it once the
   * typing pauses. */
  private typed(): void {
    const id = this.captionFor;
    if (!id) return;
    drafts.set(id, this.caption.value, this.shownCaption);
    this.captionState.textContent = '';
    clearTimeout(this.captionTimer);
    this.captionTimer = window.setTimeout(() => void this.flushCaption(), 800);
  }

  /** flushCaption saves the caption draft now (see captions.ts); the
   * draft stays (and comes back when the moment is opened again) if it
   * could not be saved. */
  private async flushCaption(): Promise<void> {
    clearTimeout(this.captionTimer);
    const id = this.captionFor;
    if (!id || (!drafts.has(id) && !saving(id))) return;
    const session = this.session;
    const here = () => this.session === session && this.captionFor === id;
    // What the window knows of the moment: the Go side answers a caption
    // waiting on this computer with only the new words when it cannot read
    // the moment itself (the engine away).
    const known = this.m?.id === id ? this.m : null;
    this.captionState.textContent = W.saving;
    try {
      const m = await saveCaption(id, this.shownCaption);
      // Every view of the moment (tiles, this dialog) takes the words saved.
      if (m) changed(m.kind || !known ? m : { ...known, caption: m.caption, waits_for: m.waits_for });
      if (here() && !drafts.has(id)) this.captionState.textContent = m?.waits_for ? W.savedHere : W.saved;
    } catch (e) {
      const x = explain(e);
      if (here()) this.captionState.textContent = W.notSaved;
      toast(captionNotSavedWords(x.sentence), 'error', x.detail);
    }
  }

  private async tryAgain(failed: Reading, button: HTMLButtonElement): Promise<void> {
    const m = this.m;
    if (!m) return;
    // One request per failed reading: pressed twice, or again after a lost
    // answer, it is the same request.
    const key = againKey(m.id, failed.id);
    const keyboard = document.activeElement === button;
    const before = readingStates(m);
    button.disabled = true;
    try {
      const r = await backend.moments.readAgain(m.id, intents.id(key));
      intents.asked(key);
      this.announce(r.status === 'waiting' ? W.readAgainOnceSent : W.readAgain, (x) => readDone(x, before, ''));
      if (keyboard) this.focusNext = 'asked-again';
    } catch (e) {
      button.disabled = false;
      if (keyboard) button.focus();
      toastError(e);
      return;
    }
    await this.refresh(m.id);
  }

  /** refresh redraws the moment after an action, as the Go side has it
   * now; with the engine away, what is shown stays. */
  private async refresh(id: string): Promise<void> {
    if (this.m?.id !== id) return;
    this.render();
    try {
      const fresh = await backend.moments.get(id);
      if (this.m?.id === id) this.update(fresh);
    } catch {
      // The engine is away: the action waits on this computer, and says so.
    }
  }

  private async careful(button?: HTMLButtonElement): Promise<void> {
    const m = this.m;
    if (!m) return;
    // The job id is minted once: pressing again, or after a lost answer or
    // a restart, asks for the same careful reading.
    const key = carefulKey(m.id);
    const keyboard = !button || document.activeElement === button;
    const before = readingStates(m);
    if (button) button.disabled = true;
    try {
      const c = await backend.moments.askCareful(m.id, intents.id(key));
      intents.asked(key);
      this.announce(c.waits_for ? carefulAskedWords(waitingWords(c.waits_for)) : W.carefulLook, (x) => readDone(x, before, 'careful'));
      if (keyboard) this.focusNext = 'careful-asked';
    } catch (e) {
      if (button) button.disabled = false;
      if (button && keyboard) button.focus();
      toastError(e);
      return;
    }
    await this.refresh(m.id);
  }

  /** carefulAgain is the deliberate new request: a new job, after a yes. */
  private async carefulAgain(): Promise<void> {
    const m = this.m;
    if (!m) return;
    const ok = await confirmDialog(W.carefulAgainTitle, W.carefulAgainBody, W.carefulAgainYes, false);
    if (!ok || this.m?.id !== m.id) return;
    intents.done(carefulKey(m.id));
    await this.careful();
  }

  private async remove(): Promise<void> {
    const m = this.m;
    if (!m) return;
    const ok = await confirmDialog(deletedWords.confirmTitle, deletedWords.confirmBody, deletedWords.confirmYes);
    if (!ok) return;
    try {
      await backend.moments.remove(m.id);
      this.close();
      deleted(m.id);
      // Deleted at once here; sent on its own if the engine is away. Undo
      // brings it back, as Restore in Recently deleted does.
      toast(deletedWords.done, 'info', '', { label: deletedWords.undo, run: () => void restoreMoment(m) });
    } catch (e) {
      toastError(e);
    }
  }
}

/** keepHint says how to keep words of a reading from the keyboard (the
 * reading's description, shown while it has the keyboard). */
const keepHint = W.keepHint;

/** readingStates is each reading's status by its id. */
function readingStates(m: Moment): Map<string, string> {
  return new Map((m.readings ?? []).map((r) => [r.id, r.status]));
}

/** readDone tells whether a reading (of the mode, or any) has finished or
 * failed since before. */
function readDone(m: Moment, before: Map<string, string>, mode: string): boolean {
  return (m.readings ?? []).some((r) => (!mode || r.mode === mode) && (r.status === 'finished' || r.status === 'failed') && before.get(r.id) !== r.status);
}

/** carefulKey names the intent of a careful reading of a moment. */
function carefulKey(momentID: string): string {
  return `careful:${momentID}`;
}

/** againKey names the intent of asking again after a failed reading. */
function againKey(momentID: string, readingID: string): string {
  return `again:${momentID}:${readingID}`;
}

let single: MomentDialog | null = null;

/** momentDialog is the window's one moment dialog. */
export function momentDialog(): MomentDialog {
  if (!single) {
    single = new MomentDialog();
    attachPhraseBar(single);
  }
  return single;
}

/** openMoment opens a moment (or an id) in the moment dialog; list gives
 * the moments next and previous step through in the photo viewer. */
export function openMoment(m: Moment | string, list?: () => Moment[]): void {
  void momentDialog().open(m, list);
}
