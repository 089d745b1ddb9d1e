import { backend, BackendError, tile, type Moment, type Phrase, type Reading, type Recall } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, sentence } from './dom';
import { intents } from './intents';
import { openMoment } from './moment';
import { onMoment } from './store';
import { phrasesWords as W, openSourceLabel, phraseSourceWords, removePhraseLabel, phraseRemovedWords, phraseBackWords, latest, readingError, kindWord, waitingWords, keptLine, keeperOnlyWords, phraseRemoveProblem } from './words';
import type { Screen } from './screen';

/** RECALL names the intent of the quick recall in progress. */
const RECALL = 'recall';

/** PhrasesScreen lists kept phrases, each with the moment it came from
 * (its small copy opens it), and runs a quick recall over them. */
export class PhrasesScreen implements Screen {
  readonly el: HTMLElement;
  private list = h('ul', { class: 'phrases', 'data-testid': 'phrases' });
  private recall = h('section', { class: 'recall', 'aria-live': 'polite', 'data-testid': 'recall' });
  private startRecall = h('button', { type: 'button', class: 'primary', 'data-testid': 'start-recall', onclick: () => void this.start() }, W.startRecall);
  private recallHint = h('p', { class: 'hint', hidden: true }, W.recallHint);
  /** recallMoment is the moment of the recall being shown. */
  private recallMoment = '';
  /** asking is true while the window waits for the Go side's answer;
   * running while a recall is on its way. */
  private asking = false;
  private running = false;

  constructor() {
    this.el = h(
      'section',
      { class: 'screen phrases-screen', 'aria-label': W.screen },
      h('h1', {}, W.title),
      h('p', { class: 'muted' }, W.intro),
      this.list,
      h('h2', {}, W.recallHead),
      h('p', { class: 'muted' }, W.recallAbout),
      this.startRecall,
      this.recallHint,
      this.recall,
    );
    onMoment((e) => {
      if (e.id === this.recallMoment && e.moment) this.showRecall(e.moment);
    });
    backend.onPhrases(() => {
      if (!this.el.hidden) void this.load();
    });
    // Another engine, other phrases (show reads them when hidden).
    backend.onEngine(() => {
      if (!this.el.hidden) void this.load();
    });
    backend.onWrite((e) => {
      if (this.el.hidden) return;
      if (e.kind === 'keep' || e.kind === 'unkeep') void this.load();
      // A recall waiting on this computer was sent: show it as it runs.
      if (e.kind === 'recall' && intents.peek(RECALL)) void this.resume();
    });
  }

  show(): void {
    void this.load();
    // A recall asked before (and not finished) is shown, not started again.
    if (intents.peek(RECALL) && !this.asking) void this.resume();
  }

  private async load(): Promise<void> {
    try {
      const ps = await backend.phrases.list();
      this.startRecall.disabled = ps.length === 0 || this.running;
      this.recallHint.hidden = ps.length > 0;
      if (ps.length === 0) {
        clear(this.list, h('li', { class: 'empty' }, W.none));
        return;
      }
      // Newest kept first.
      clear(this.list, ...ps.reverse().map((p) => this.item(p)));
    } catch (e) {
      clear(this.list, h('li', { class: 'empty' }, errorBlock(e)));
    }
  }

  private item(p: Phrase): HTMLElement {
    const from = p.moment_id && !p.moment_gone;
    const what = p.moment_caption || (p.moment_kind ? kindWord({ kind: p.moment_kind }) : W.photo);
    const thumb = from
      ? h(
          'button',
          {
            type: 'button',
            class: 'phrase-thumb',
            // Its name begins with the word it shows when it has no picture
            // ("Note"), as a spoken command of what is seen would.
            'aria-label': openSourceLabel(p.moment_thumb ? '' : kindWord({ kind: p.moment_kind || 'note' }), what),
            'data-testid': 'phrase-moment',
            onclick: () => openMoment(p.moment_id),
          },
          p.moment_thumb ? h('img', { src: tile(p.moment_thumb), alt: '', loading: 'lazy' }) : h('span', { class: 'phrase-thumb-kind' }, kindWord({ kind: p.moment_kind || 'note' })),
        )
      : h('span', { class: 'phrase-thumb none', 'aria-hidden': 'true' }, '“”');
    return h(
      'li',
      { class: 'phrase', 'data-testid': 'phrase' },
      thumb,
      h(
        'div',
        { class: 'phrase-main' },
        h('p', { class: 'phrase-text' }, `“${p.text}”`),
        h(
          'p',
          { class: 'muted phrase-meta' },
          h('span', { 'data-testid': 'phrase-kept' }, keptLine(p.kept_at, p.kept_by)),
          p.waits_for ? h('span', { class: 'waiting-note', 'data-testid': 'phrase-waiting' }, ` · ${waitingWords(p.waits_for)}`) : null,
          from ? phraseSourceWords.from : p.moment_gone ? phraseSourceWords.gone : '',
          from ? h('button', { type: 'button', class: 'link', onclick: () => openMoment(p.moment_id) }, what) : null,
        ),
        // Another family member's, which Spark's key may not remove: no
        // Remove that could only be turned down, but why there is none.
        p.keeper_only ? h('p', { class: 'muted phrase-meta', 'data-testid': 'phrase-keeper-only' }, keeperOnlyWords(p.kept_by)) : null,
      ),
      p.keeper_only ? null : h('button', { type: 'button', class: 'phrase-remove', 'aria-label': removePhraseLabel(p.text), onclick: () => void this.remove(p) }, W.remove),
    );
  }

  private async remove(p: Phrase): Promise<void> {
    try {
      // Removed here at once; sent on its own if the engine is away.
      await backend.phrases.remove(p.id);
      await this.load();
      toast(phraseRemovedWords(p.text), 'info', '', { label: W.undo, run: () => void this.undo(p) });
    } catch (e) {
      // Turned down because another family member keeps it: say who.
      if (e instanceof BackendError) {
        const x = phraseRemoveProblem(e.error, p.kept_by);
        toast(x.sentence, 'error', x.detail);
        if (e.error.parked) void this.load();
      } else toastError(e);
    }
  }

  private async undo(p: Phrase): Promise<void> {
    try {
      // A phrase's id comes from its words: keeping them again brings it back.
      await backend.phrases.keep(p.text, p.moment_gone ? '' : p.moment_id);
      toast(phraseBackWords(p.text));
      await this.load();
    } catch (e) {
      toastError(e);
    }
  }

  private async start(): Promise<void> {
    clear(this.recall, h('p', { class: 'muted' }, W.asking));
    await this.ask();
  }

  /** resume shows the recall in progress (the same recall id: asking the
   * Go side again starts nothing new). */
  private async resume(): Promise<void> {
    await this.ask();
  }

  /** ask asks for the recall of the intent in progress, or of a new one:
   * one recall id per press of "Start a quick recall", kept until that
   * recall is over, so a second press or a lost answer starts no second
   * recall. */
  private async ask(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    this.inProgress(true);
    try {
      const r = await backend.phrases.recall(intents.id(RECALL));
      intents.asked(RECALL);
      this.showAnswer(r);
      if (!r.moment_id) return;
      // The reading arrives with the moment's change (store.ts); ask once
      // more in case it finished before this listened.
      const m = await backend.moments.get(r.moment_id);
      if (this.recallMoment === m.id) this.showRecall(m);
    } catch (e) {
      // Refused (no phrases, say): nothing was asked, the next press is new.
      if (e instanceof BackendError && e.code === 'bad_id') intents.done(RECALL);
      this.inProgress(false);
      clear(this.recall, errorBlock(e));
    } finally {
      this.asking = false;
    }
  }

  private showAnswer(r: Recall): void {
    if (r.waits_for || !r.reading.id) {
      this.recallMoment = r.moment_id;
      clear(
        this.recall,
        h('p', { class: 'pill waiting', 'data-testid': 'recall-status' }, W.notSent),
        h('p', { class: 'muted', 'data-testid': 'recall-waiting' }, waitingWords(r.waits_for) || W.recallOnceSent),
      );
      return;
    }
    this.recallMoment = r.moment_id;
    this.showReading(r.reading);
  }

  /** inProgress shows whether a recall is on its way: the button then
   * says so and starts nothing. */
  private inProgress(on: boolean): void {
    this.running = on;
    this.startRecall.disabled = on;
    this.startRecall.textContent = on ? W.recallOnWay : W.startRecall;
  }

  private showRecall(m: Moment): void {
    const r = latest(m.readings);
    if (r) this.showReading(r);
  }

  private showReading(r: Reading): void {
    const done = r.status === 'finished' || r.status === 'failed';
    // The recall is over: the next press is a new recall.
    if (done) intents.done(RECALL);
    this.inProgress(!done);
    clear(
      this.recall,
      h('p', { class: `pill status-${r.status}`, 'data-testid': 'recall-status' }, done ? (r.status === 'finished' ? W.finished : W.couldNotRecall) : W.recalling),
      r.text ? h('blockquote', { class: 'reading-text', 'data-testid': 'recall-text' }, r.text) : null,
      r.status === 'failed' ? sentence({ sentence: readingError(r.error_code), detail: r.error }) : null,
      this.recallMoment ? h('button', { type: 'button', class: 'link', onclick: () => openMoment(this.recallMoment) }, W.openRecall) : null,
    );
  }
}
