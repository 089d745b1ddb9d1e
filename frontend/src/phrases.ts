import { backend, type Phrase, type Reading } from './backend';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, when } from './dom';
import { ulid } from './ulid';
import type { Screen } from './screen';

/** PhrasesScreen lists kept phrases and runs a quick recall over them. */
export class PhrasesScreen implements Screen {
  readonly el: HTMLElement;
  private list = h('ul', { class: 'phrases', 'data-testid': 'phrases' });
  private recall = h('section', { class: 'recall', 'aria-live': 'polite', 'data-testid': 'recall' });
  private poll = 0;

  constructor() {
    this.el = h(
      'section',
      { class: 'screen phrases-screen', 'aria-label': 'Phrases and recall' },
      h('h1', {}, 'Phrases'),
      h('p', { class: 'muted' }, 'Phrases you keep from Pippa’s readings. Select words in a reading and choose “Keep this phrase”.'),
      this.list,
      h('h2', {}, 'Quick recall'),
      h('p', { class: 'muted' }, 'Pippa weaves your kept phrases into a short recall.'),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'start-recall', onclick: () => void this.start() }, 'Start a quick recall'),
      this.recall,
    );
  }

  show(): void {
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      const ps = await backend.phrases.list();
      if (ps.length === 0) {
        clear(this.list, h('li', { class: 'empty' }, 'No kept phrases yet.'));
        return;
      }
      clear(this.list, ...ps.map((p) => this.item(p)));
    } catch (e) {
      clear(this.list, h('li', { class: 'empty' }, errorBlock(e)));
    }
  }

  private item(p: Phrase): HTMLElement {
    return h(
      'li',
      { class: 'phrase', 'data-testid': 'phrase' },
      h('span', { class: 'phrase-text' }, `“${p.text}”`),
      h('span', { class: 'muted' }, `kept ${when(p.keptAt)}`),
      h('button', { type: 'button', 'aria-label': `Remove “${p.text}”`, onclick: () => void this.remove(p) }, 'Remove'),
    );
  }

  private async remove(p: Phrase): Promise<void> {
    try {
      await backend.phrases.remove(p.id);
      toast(`Removed “${p.text}”.`);
      await this.load();
    } catch (e) {
      toastError(e);
    }
  }

  private async start(): Promise<void> {
    clearTimeout(this.poll);
    clear(this.recall, h('p', { class: 'muted' }, 'Asking Pippa…'));
    try {
      const r = await backend.phrases.recall(ulid());
      this.showReading(r.reading);
    } catch (e) {
      clear(this.recall, errorBlock(e));
    }
  }

  private showReading(r: Reading): void {
    const done = r.status === 'finished' || r.status === 'failed';
    clear(
      this.recall,
      h('p', { class: `pill status-${r.status}`, 'data-testid': 'recall-status' }, done ? (r.status === 'finished' ? 'Finished' : 'Failed') : 'Pippa is recalling…'),
      r.text ? h('blockquote', { class: 'reading-text', 'data-testid': 'recall-text' }, r.text) : null,
      r.error ? h('p', { class: 'error-text' }, r.error) : null,
    );
    if (!done) {
      this.poll = window.setTimeout(async () => {
        try {
          this.showReading(await backend.moments.reading(r.id));
        } catch (e) {
          toastError(e);
        }
      }, 1000);
    }
  }
}
