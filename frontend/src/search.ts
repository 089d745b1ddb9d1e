// Search: one box over captions, Pippa's readings and kept phrases,
// answered by the engine's full-text index (SQLite FTS5 in its mirror, so
// on this computer it works without a network). Results are tiles with the
// matching words marked.
import { backend, tile, type Moment, type SearchPart, type SearchResult, type SearchView } from './backend';
import { h, clear, when } from './dom';
import { explain } from './feedback';
import { sentence } from './dom';
import { openMoment } from './moment';
import { kindWord, titleOf, searchSourceWords, searchWords, searchResultWords } from './words';
import type { Screen } from './screen';

/** shownMatches is each matching text of a result once, labelled by where
 * it was found: a reading by its kind (Pippa's reading, her careful one),
 * read from the moment's own readings by the match's key (the reading's
 * id). Two readings that say the same words show once, as the careful
 * one when either is: the one Dad asked for. */
function shownMatches(r: SearchResult): { label: string; parts: SearchPart[] }[] {
  const modeOf = new Map(r.moment.readings.map((x) => [x.id, x.mode]));
  const out: { label: string; parts: SearchPart[]; text: string; reading: boolean; careful: boolean }[] = [];
  for (const x of r.matches) {
    const reading = x.source === 'reading';
    const mode = reading ? (modeOf.get(x.key) ?? '') : '';
    const label = searchSourceWords(x.source, mode);
    const text = x.parts.map((p) => p.text).join('');
    const same = out.find((o) => o.text === text && (o.label === label || (reading && o.reading)));
    if (!same) out.push({ label, parts: x.parts, text, reading, careful: mode === 'careful' });
    else if (mode === 'careful' && !same.careful) Object.assign(same, { label, careful: true });
  }
  return out;
}

/** marked draws a match with its matching words in <mark>. */
function marked(parts: SearchPart[]): HTMLElement {
  return h('span', { class: 'match-text' }, ...parts.map((p) => (p.hit ? h('mark', {}, p.text) : p.text)));
}

export class SearchScreen implements Screen {
  readonly el: HTMLElement;
  private status = h('p', { class: 'muted', 'aria-live': 'polite', 'data-testid': 'search-status' });
  private grid = h('ul', { class: 'results', 'data-testid': 'search-results' });
  private loose = h('section', { class: 'loose-phrases', hidden: true });
  private seq = 0;
  private shown: Moment[] = [];
  query = '';

  constructor() {
    this.el = h('section', { class: 'screen search', 'aria-label': searchWords.results }, h('h1', {}, searchWords.title), this.status, this.grid, this.loose);
    // The results shown are the engine's before: ask the one now chosen.
    backend.onEngine(() => {
      if (!this.el.hidden && this.query) void this.run(this.query);
    });
  }

  show(): void {}

  async run(q: string): Promise<void> {
    this.query = q;
    const n = ++this.seq;
    const started = performance.now();
    this.status.textContent = searchWords.searching;
    let res: SearchView;
    try {
      res = await backend.moments.search(q);
    } catch (e) {
      if (n !== this.seq) return;
      clear(this.status);
      this.status.append(sentence(explain(e)));
      clear(this.grid);
      return;
    }
    if (n !== this.seq) return;
    this.shown = res.results.map((r) => r.moment);
    clear(this.grid, ...res.results.map((r) => this.tile(r)));
    this.loose.hidden = res.phrases.length === 0;
    clear(
      this.loose,
      h('h2', {}, searchWords.keptPhrases),
      h('ul', { class: 'phrases' }, ...res.phrases.map((p) => h('li', { class: 'phrase loose' }, h('span', { class: 'phrase-text' }, '“', marked(p.parts), '”')))),
    );
    const total = res.results.length;
    const ms = performance.now() - started;
    this.el.dataset.ms = ms.toFixed(1);
    this.el.dataset.engineMs = res.millis.toFixed(1);
    this.status.textContent = searchResultWords(total, res.phrases.length, q);
  }

  private tile(r: SearchResult): HTMLElement {
    const m = r.moment;
    const title = titleOf(m);
    return h(
      'li',
      { class: 'result' },
      h(
        'button',
        { type: 'button', class: 'result-button', 'data-testid': 'search-result', 'data-moment': m.id, onclick: () => openMoment(m, () => this.shown) },
        m.thumb ? h('img', { src: tile(m.thumb), alt: '', loading: 'lazy', decoding: 'async' }) : h('span', { class: 'result-face' }, kindWord(m)),
        h(
          'span',
          { class: 'result-body' },
          h('span', { class: 'result-title' }, title),
          h('span', { class: 'muted result-date' }, when(m.taken_at || m.created_at)),
          ...shownMatches(r).map((x) => h('span', { class: 'match', 'data-testid': 'search-match' }, h('span', { class: 'match-source' }, x.label), marked(x.parts))),
        ),
      ),
    );
  }
}
