import { backend, canceled, tile, type CaptureEvent, type CaptureResult, type OutboxEvent } from './backend';
import { h, clear, toast } from './dom';
import { toastError } from './feedback';
import { ulid } from './ulid';
import { intents } from './intents';
import { openMoment } from './moment';
import { onMoment } from './store';
import { captureWords as W, notAddedWords, alreadyAddedWords, batchWords, preview, firstLines, cardRefused, noteKept, problem, dialogWords, cardQueued, keptWords, sendingWords, pippaSetUp, cardName, type Preview } from './words';
import { place, onPlace, openPippaSettings } from './place';
import type { Screen } from './screen';
import { appError } from './codes';

type Go = (t: 'outbox' | 'moments' | 'settings') => void;

interface Card {
  name: string;
  el: HTMLElement;
  open: HTMLButtonElement;
  state: HTMLElement;
  said: HTMLElement;
  thumb: HTMLElement;
  extra: HTMLElement;
  /** setup holds "Set her up" while no Pippa can read the photo: a link
   * of its own, after the card's button (never inside it). */
  setup: HTMLElement;
  momentID: string;
  /** read: the reading line shows Pippa's words (not a state any more). */
  read: boolean;
}

/** CaptureScreen adds photos: drop, choose, import a folder, paste; and notes. */
export class CaptureScreen implements Screen {
  readonly el: HTMLElement;
  private cards = h('ul', { class: 'cards', 'aria-label': W.cards, 'data-testid': 'cards' });
  private byEntry = new Map<string, Card>();
  private byMoment = new Map<string, Card>();
  private pending = new Map<string, Card[]>(); // batch -> placeholder cards
  private bar = h('div', { class: 'batch', hidden: true, 'data-testid': 'batch' });
  private note = h('textarea', { id: 'note', rows: 3, placeholder: W.notePlaceholder });
  private noteKeptAt = 0;
  private keepNote = h('button', { type: 'submit', 'data-testid': 'keep-note' }, W.keepNote);

  constructor(private readonly go: Go) {
    const drop = h(
      'section',
      { class: 'dropzone', 'aria-label': W.dropzone, 'data-testid': 'dropzone' },
      h('div', { class: 'drop-icon', 'aria-hidden': 'true' }, '✦'),
      h('h1', {}, W.title),
      h('p', { class: 'lead', 'data-testid': 'what-spark-does' }, W.lead),
      h('p', {}, W.dragOr),
      h(
        'div',
        { class: 'row center' },
        h('button', { type: 'button', class: 'primary', onclick: () => void this.run((b) => backend.capture.choosePhotos(b, dialogWords.photos)) }, W.choosePhotos),
        h('button', { type: 'button', onclick: () => void this.run((b) => backend.capture.importFolder(b, dialogWords.folder)) }, W.importFolder),
      ),
      h('p', { class: 'hint' }, W.pasteHint),
    );
    drop.style.setProperty('--wails-drop-target', 'drop');
    const noteForm = h(
      'form',
      { class: 'note', onsubmit: (e: Event) => { e.preventDefault(); void this.addNote(); } },
      h('label', { for: 'note' }, W.noteLabel),
      this.note,
      h('div', { class: 'row end' }, this.keepNote),
    );
    this.el = h('section', { class: 'screen capture', 'aria-label': W.title }, drop, this.bar, this.cards, noteForm);

    backend.onFileDrop((paths) => void this.run((b) => backend.capture.files(b, paths)));
    backend.onCapture((e) => this.onCapture(e));
    backend.onOutbox((e) => this.onOutbox(e));
    onMoment((e) => {
      const card = this.byMoment.get(e.id);
      if (!card) return;
      if (e.kind === 'deleted') {
        card.el.dataset.state = 'deleted';
        card.state.textContent = W.deleted;
        card.said.textContent = '';
        card.open.disabled = true;
      } else if (e.moment) {
        const p = preview(e.moment, place());
        if (p.state === 'none') return;
        this.say(card, p);
        card.read = p.state === 'reading';
      }
    });
    // Pippa set up, or the engine changed: a card that waits for her says
    // so anew.
    onPlace(() => {
      for (const c of this.byMoment.values()) {
        if (!c.read && (c.said.dataset.state === 'waiting' || c.said.dataset.state === 'no-pippa')) this.say(c, cardQueued(place()));
      }
    });
    document.addEventListener('paste', (e) => void this.paste(e));
  }

  show(): void {}

  /** say puts a preview on a card's reading line, with "Set her up" when
   * the photo waits for a Pippa Dad can set up here. */
  private say(c: Card, p: Preview): void {
    c.said.textContent = firstLines(p.text, 200);
    c.said.dataset.state = p.state;
    const link = p.state === 'no-pippa' ? pippaSetUp(place()) : '';
    clear(c.setup, link ? h('button', { type: 'button', class: 'link', 'data-testid': 'card-setup', onclick: () => openPippaSettings() }, link) : null);
  }

  /** run starts a batch and reports errors; cards come from the events. */
  private async run(start: (batch: string) => Promise<CaptureResult[]>): Promise<void> {
    const batch = ulid();
    try {
      const results = await start(batch);
      const failed = results.filter((r) => r.error).length;
      const dup = results.filter((r) => r.duplicate).length;
      if (failed > 0) toast(notAddedWords(failed), 'error');
      else if (dup > 0) toast(alreadyAddedWords(dup));
    } catch (e) {
      if (canceled(e)) return;
      toastError(e);
    }
  }

  private onCapture(e: CaptureEvent): void {
    if (e.kind === 'start') {
      const placeholders = (e.names ?? []).map((n) => this.addCard(n));
      this.pending.set(e.batch, placeholders);
      this.bar.hidden = e.total < 2;
    } else if (e.kind === 'result' && e.result) {
      // Results come in the order they finish: fill the placeholder of the
      // same file.
      const slots = this.pending.get(e.batch) ?? [];
      const at = slots.findIndex((c) => c.name === e.result?.name);
      const slot = at >= 0 ? slots.splice(at, 1)[0] : slots.shift();
      this.fill(slot ?? this.addCard(e.result.name), e.result);
    } else if (e.kind === 'done') {
      for (const c of this.pending.get(e.batch) ?? []) c.el.remove();
      this.pending.delete(e.batch);
      window.setTimeout(() => (this.bar.hidden = true), 1500);
    }
    if (e.total > 1) {
      const label = batchWords(e.kind === 'done', e.done, e.total);
      clear(this.bar, h('label', { for: 'batch-progress' }, label), h('progress', { id: 'batch-progress', max: e.total, value: e.done }));
    }
    document.dispatchEvent(new Event('spark:status'));
  }

  private addCard(name: string): Card {
    const thumb = h('div', { class: 'thumb loading', 'aria-hidden': 'true' });
    const state = h('p', { class: 'state' }, W.saving);
    const said = h('p', { class: 'card-reading', 'data-testid': 'card-reading' });
    const card: Card = { name, el: h('li'), open: h('button'), state, said, thumb, extra: h('div', { class: 'card-extra' }), setup: h('div', { class: 'card-setup' }), momentID: '', read: false };
    // The whole card opens its moment, once there is one.
    card.open = h(
      'button',
      { type: 'button', class: 'card-open', disabled: true, onclick: () => card.momentID && openMoment(card.momentID) },
      thumb,
      h('span', { class: 'name', title: name }, cardName(name)),
      state,
      said,
    );
    // card.extra (a refused photo's reason and action) comes first.
    card.el = h('li', { class: 'card', 'data-testid': 'card' }, card.extra, card.open, card.setup);
    this.cards.prepend(card.el);
    return card;
  }

  private fill(c: Card, r: CaptureResult): void {
    if (r.error) {
      c.el.classList.add('failed');
      clear(c.thumb, h('span', { class: 'big' }, '!'));
      c.thumb.classList.remove('loading');
      c.state.textContent = problem(r.error).sentence;
      c.el.dataset.state = 'failed';
      return;
    }
    if (r.duplicate) {
      // The photo it duplicates: shown, and opened with the card.
      c.el.dataset.state = 'duplicate';
      c.thumb.classList.remove('loading');
      c.state.textContent = W.duplicate;
      if (r.thumb) clear(c.thumb, h('img', { src: tile(r.thumb), alt: '', loading: 'lazy', decoding: 'async' }));
      if (r.moment_id) {
        c.el.dataset.momentId = r.moment_id;
        c.momentID = r.moment_id;
        c.open.disabled = false;
      }
      return;
    }
    clear(c.thumb, h('img', { src: tile(r.thumb), alt: '', loading: 'lazy', decoding: 'async' }));
    c.thumb.classList.remove('loading');
    c.el.dataset.state = 'sending';
    c.el.dataset.entry = r.entry_id;
    c.el.dataset.momentId = r.moment_id;
    c.state.textContent = sendingWords(place());
    c.momentID = r.moment_id;
    c.open.disabled = false;
    this.byEntry.set(r.entry_id, c);
    this.byMoment.set(r.moment_id, c);
  }

  private onOutbox(e: OutboxEvent): void {
    const c = this.byEntry.get(e.entry_id);
    if (!c) return;
    clear(c.extra);
    switch (e.kind) {
      case 'step_done':
        if (e.step === 'turn' && !c.read) this.say(c, cardQueued(place()));
        break;
      case 'progress':
        break;
      case 'waiting':
        c.el.dataset.state = 'waiting';
        c.state.textContent = W.safeHere;
        break;
      case 'parked':
        // The reason and what to do about it go together, at the top of
        // the card, where they are in view as soon as the card is.
        c.el.dataset.state = 'parked';
        c.state.textContent = '';
        c.extra.append(
          h('p', { class: 'card-refused', 'data-testid': 'card-refused' }, `${cardRefused(e.code)} `),
          h('button', { type: 'button', class: 'link', onclick: () => this.go('outbox') }, W.seeWhatToDo),
        );
        break;
      case 'done':
        c.el.dataset.state = 'sent';
        c.state.textContent = keptWords(place());
        break;
      case 'retried':
      case 'reset':
        c.el.dataset.state = 'sending';
        c.state.textContent = sendingWords(place());
        break;
    }
  }

  private async paste(e: ClipboardEvent): Promise<void> {
    if (this.el.hidden) return;
    const target = e.target as HTMLElement | null;
    if (target && (target.tagName === 'TEXTAREA' || target.tagName === 'INPUT')) return;
    const item = Array.from(e.clipboardData?.items ?? []).find((i) => i.kind === 'file' && i.type.startsWith('image/'));
    const file = item?.getAsFile();
    if (!item || !file) return;
    e.preventDefault();
    const data = await new Promise<string | null>((resolve) => {
      const r = new FileReader();
      r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''));
      r.onerror = () => resolve(null);
      r.readAsDataURL(file);
    });
    if (data === null) {
      // The same words as when the Go side can't read it (words.ts).
      toast(problem({ code: appError.pasteUnreadable }).sentence, 'error');
      return;
    }
    await this.run((b) => backend.capture.paste(b, item.type, data));
  }

  private async addNote(): Promise<void> {
    if (this.keepNote.disabled) return;
    const text = this.note.value.trim();
    // The second click of a double click finds the box already emptied.
    if (!text && Date.now() - this.noteKeptAt < 1000) return;
    if (!text) {
      toast(W.writeFirst);
      this.note.focus();
      return;
    }
    // One note per intent: the same words pressed again (or again after a
    // lost answer) are the same note.
    const key = `note:${text}`;
    const id = intents.id(key);
    // The note leaves the box at once; it is safe on this computer as soon
    // as the binding answers (it does not wait for the engine: the note is
    // sent behind). Refused, the words come back to the box.
    this.keepNote.disabled = true;
    this.note.value = '';
    try {
      await backend.moments.addNote(id, text);
      intents.done(key);
      this.noteKeptAt = Date.now();
      toast(noteKept);
    } catch (e) {
      if (!this.note.value.trim()) this.note.value = text;
      toastError(e);
    } finally {
      this.keepNote.disabled = false;
    }
  }
}
