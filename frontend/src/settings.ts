import { backend, type Leftovers, type SettingsView, type TestResult } from './backend';
import { MoveBlock } from './move';
import { toastError, errorBlock } from './feedback';
import { h, clear, toast, confirmDialog, sentence } from './dom';
import type { Screen } from './screen';
import { leftoversWords, pippaSaved } from './words';
import { syncBlock } from './syncstatus';
import { offsiteBlock } from './offsite';
import { place, onPlace } from './place';
import { connectionTestWords, warningWords, knownEngineWords, settingsWords as W, wordsInPhotosWords as WW } from './words';
import { setWordsChoice, shippedLanguages, wordsOff } from './wordsreader';

/** SettingsScreen: which engine, Pippa for the local engine, data folder. */
export class SettingsScreen implements Screen {
  readonly el: HTMLElement;
  private body = h('div', { class: 'settings-body' });
  /** touched: Dad's hands were on the screen since it was last shown (a
   * change, a click, a key), so the fresh copy that show() fetches must
   * not redraw under them: a click on "Family engine" while it loads, or
   * a click into the connection text after a choice made before. */
  private touched = false;
  /** last is the copy of the settings last drawn. */
  private last: SettingsView | null = null;
  /** asked counts the copies asked for: only the latest is drawn, so a
   * copy of an earlier showing that comes last never covers a fresher
   * one. */
  private asked = 0;
  /** atPippa: the screen was opened by "Set her up": each drawing until
   * the fresh copy's puts Pippa's section in view, with the keyboard. */
  private atPippa = false;
  /** drawnAt is where the moments were kept (place.ts) when last drawn. */
  private drawnAt = '';

  constructor(private readonly changed: () => void) {
    this.el = h('section', { class: 'screen settings', 'aria-label': W.title }, h('h1', {}, W.title), this.body);
    const touch = () => {
      this.touched = true;
    };
    for (const ev of ['input', 'change', 'pointerdown', 'keydown']) this.body.addEventListener(ev, touch);
    // Where the moments are kept is what the status bar last read (one
    // source of truth, place.ts): when it learns of a switch, Settings
    // says so too, never before.
    onPlace((p) => {
      if (p.engine !== this.drawnAt && this.last && !this.el.hidden) this.render(this.last);
    });
  }

  show(again = false): void {
    // Shown anew, the screen is drawn at once from the copy last read:
    // what Dad chose and did not save went when he left, and the fresh
    // copy is drawn over it unless his hands are on it first. Its tab
    // clicked again while it shows, what he has begun stays.
    if (!again) {
      this.touched = false;
      if (this.last) this.render(this.last);
    }
    void this.load();
  }

  /** showPippa is show() at Pippa's section (a card's or a moment's
   * "Set her up"); main.ts opens the tab. */
  showPippa(): void {
    this.atPippa = true;
  }

  private async load(): Promise<void> {
    const n = ++this.asked;
    try {
      const s = await backend.settings.get();
      if (!this.touched && n === this.asked) this.render(s);
    } catch (e) {
      if (!this.touched && n === this.asked) clear(this.body, errorBlock(e));
    } finally {
      if (n === this.asked) this.atPippa = false;
    }
  }

  /** toPippa puts Pippa's section in view with the keyboard on it. */
  private toPippa(): void {
    const s = this.body.querySelector<HTMLElement>('[data-testid=pippa-section]');
    if (!s) return;
    s.scrollIntoView({ block: 'start' });
    s.focus();
  }

  private render(s: SettingsView): void {
    this.last = s;
    // Where the moments are kept now, as the status bar says (its last
    // status; Settings' own copy until the bar has read one): a family
    // engine chosen and saved is "connected" only once the bar says so.
    const at = place().engine || s.engine;
    this.drawnAt = place().engine;
    const connected = s.engine === 'remote' && at === 'remote';
    const local = h('input', { type: 'radio', name: 'engine', id: 'engine-local', value: 'local' });
    const remote = h('input', { type: 'radio', name: 'engine', id: 'engine-remote', value: 'remote' });
    local.checked = s.engine !== 'remote';
    remote.checked = s.engine === 'remote';
    const url = h('input', { id: 'remote-url', type: 'url', placeholder: 'http://192.168.1.20:8787', autocomplete: 'off', spellcheck: 'false' });
    const token = h('input', { id: 'remote-token', type: 'password', autocomplete: 'off', spellcheck: 'false' });
    url.value = s.remote_url;
    token.value = s.remote_token;
    const result = h('div', { class: 'test-result', 'aria-live': 'polite', 'data-testid': 'test-result' });
    const conn = h('input', { id: 'connection', type: 'text', class: 'mono', placeholder: W.connectionPlaceholder, autocomplete: 'off', spellcheck: 'false', 'data-testid': 'connection' });
    const separate = h(
      'details',
      { class: 'details separate' },
      h('summary', {}, W.separate),
      h(
        'div',
        { class: 'fields' },
        h('label', { for: 'remote-url' }, W.address),
        url,
        h('label', { for: 'remote-token' }, W.key),
        token,
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', onclick: () => void this.test(url.value, token.value, result) }, W.check),
          h('button', { type: 'button', 'data-testid': 'use-remote', onclick: () => void this.connect(`${url.value.trim()}#${token.value.trim()}`, result) }, W.useThem),
        ),
      ),
    );
    const remoteFields = h(
      'div',
      { class: 'connect' },
      connected
        ? h('p', { class: 'ok-text', 'data-testid': 'connected-to' }, W.connectedTo)
        : null,
      h('label', { for: 'connection' }, W.connection),
      h('p', { class: 'hint', id: 'connection-help' }, W.connectionHelp),
      h(
        'form',
        { class: 'row nowrap', onsubmit: (e: Event) => { e.preventDefault(); void this.connect(conn.value, result); } },
        conn,
        h('button', { type: 'submit', class: 'primary', 'data-testid': 'connect' }, W.connect),
      ),
      result,
      separate,
    );
    conn.setAttribute('aria-describedby', 'connection-help');
    // What was said of the text before is not said of the text now.
    let typed = 0;
    for (const f of [conn, url, token]) {
      f.addEventListener('input', () => {
        typed++;
        clear(result);
      });
    }
    // Family engine chosen but not connected: said under the radio (and
    // read with it), so the radio never claims what the status bar denies.
    const notYet = h('p', { class: 'hint choice-note', id: 'engine-not-yet', 'data-testid': 'engine-not-yet' }, knownEngineWords.notYet);
    remote.setAttribute('aria-describedby', 'engine-not-yet');
    const sync = () => {
      remoteFields.hidden = !remote.checked;
      notYet.hidden = !remote.checked || connected;
    };
    sync();
    local.addEventListener('change', () => {
      sync();
      if (local.checked && s.engine === 'remote') void this.useLocal();
    });
    remote.addEventListener('change', () => {
      sync();
      // Back to the family engine Spark knows: one click, no pasting.
      if (remote.checked && s.engine !== 'remote' && s.remote_url && s.remote_token) void this.goBack(s, result, () => typed);
    });

    const pURL = h('input', { id: 'pippa-url', type: 'url', placeholder: s.ollama_url, spellcheck: 'false' });
    const pModel = h('input', { id: 'pippa-model', type: 'text', placeholder: 'llava', spellcheck: 'false' });
    const pKey = h('input', { id: 'pippa-key', type: 'password', autocomplete: 'off', placeholder: W.pippaKeyPlaceholder });
    pURL.value = s.pippa.url;
    pModel.value = s.pippa.model;
    pKey.value = s.pippa.key ?? '';

    clear(
      this.body,
      h(
        'fieldset',
        {},
        h('legend', {}, W.where),
        h('div', { class: 'choice' }, local, h('label', { for: 'engine-local' }, h('strong', {}, W.thisComputer), h('span', { class: 'muted' }, W.thisComputerMore))),
        h('div', { class: 'choice' }, remote, h('label', { for: 'engine-remote' }, h('strong', {}, W.family), h('span', { class: 'muted' }, W.familyMore))),
        notYet,
        remoteFields,
        MoveBlock.mount('settings'),
        h('details', { class: 'details' }, h('summary', {}, W.whereDetails), h('pre', {}, W.detailsWhere(s.engine === 'remote' ? s.remote_url : '', s.local_url))),
      ),
      h(
        'fieldset',
        { disabled: s.engine === 'remote', id: 'pippa', tabindex: -1, 'data-testid': 'pippa-section' },
        h('legend', {}, W.pippa),
        h('p', {}, s.engine === 'remote' ? W.pippaFamily : s.pippa.url ? W.pippaLocal : W.pippaLocal + W.pippaHow),
        s.engine === 'remote'
          ? null
          : h('p', { 'data-testid': 'pippa-now' }, s.pippa.url ? W.pippaSetUp(s.pippa.url === s.ollama_url) : W.pippaNotSetUp),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', class: s.pippa.url ? '' : 'primary', onclick: () => void this.savePippa(s.ollama_url, pModel.value && s.pippa.url === s.ollama_url ? pModel.value : 'llava', '') }, W.useOllama),
        ),
        h(
          'details',
          { class: 'details' },
          h('summary', {}, W.pippaDetails),
          s.pippa.url ? h('p', { 'data-testid': 'pippa-detail' }, W.pippaNow(s.pippa.model, s.pippa.url)) : null,
          h('p', { class: 'hint' }, W.pippaHelp),
          h('div', { class: 'fields' },
            h('label', { for: 'pippa-url' }, W.pippaAddress), pURL,
            h('label', { for: 'pippa-model' }, W.pippaModel), pModel,
            h('label', { for: 'pippa-key' }, W.pippaKey), pKey),
          h('div', { class: 'row' }, h('button', { type: 'button', class: 'primary', onclick: () => void this.savePippa(pURL.value, pModel.value, pKey.value) }, W.savePippa)),
        ),
      ),
      wordsBlock(s, (v) => {
        if (this.last) this.last = { ...this.last, words_lang: v.words_lang };
      }),
      offsiteBlock(),
      h(
        'fieldset',
        {},
        h('legend', {}, W.yourData),
        h('p', {}, W.keptIn),
        h(
          'div',
          { class: 'row' },
          h('button', { type: 'button', onclick: () => void backend.settings.openDataFolder().catch((e: unknown) => toastError(e)) }, W.openData),
        ),
        // Where the folder is, and the log: for whoever helps Dad.
        h(
          'details',
          { class: 'details' },
          h('summary', {}, W.dataDetails),
          h('p', {}, W.dataDir, h('code', { 'data-testid': 'data-dir' }, s.data_dir)),
          h('div', { class: 'row' }, h('button', { type: 'button', onclick: () => void backend.settings.openLogFolder().catch((e: unknown) => toastError(e)) }, W.openLog)),
        ),
        leftoversBlock(s.leftovers),
      ),
      h('fieldset', {}, h('legend', {}, W.about), aboutLine()),
    );
    // This computer's copy of the family engine: what stopped it, and its rebuild.
    this.body.firstElementChild?.after(syncBlock());
    if (this.atPippa) this.toPippa();
  }

  /** safeToSend asks Dad before his token goes to an address that would
   * send it unprotected (plain http to another computer). */
  private async safeToSend(url: string): Promise<boolean> {
    let warning = '';
    try {
      warning = await backend.settings.addressWarning(url);
    } catch {
      return true; // the test or connection that follows says what is wrong
    }
    return !warning || confirmDialog(W.notProtected, warningWords(warning), W.sendAnyway);
  }

  private async test(url: string, token: string, out: HTMLElement): Promise<void> {
    if (!(await this.safeToSend(url))) return;
    out.textContent = W.checking;
    out.className = 'test-result';
    try {
      const r = await backend.settings.test(url, token);
      this.showTest(out, r);
    } catch (e) {
      clear(out, errorBlock(e));
      out.classList.add('bad');
    }
  }

  /** showTest shows a connection test's answer, and its warning (a
   * token sent over plain http, say) when it has one. */
  private showTest(out: HTMLElement, r: TestResult): void {
    clear(out, h('p', {}, connectionTestWords(r)), r.warning ? h('p', { class: 'warn-text', 'data-testid': 'test-warning' }, warningWords(r.warning)) : null);
    out.className = `test-result ${r.ok ? 'ok' : 'bad'}`;
  }

  /** connect checks the engine of a connection text and switches to it;
   * one that does not answer is used only if the person confirms. */
  private async connect(text: string, out: HTMLElement, anyway = false): Promise<void> {
    if (!anyway && !(await this.safeToSend((text.split('#')[0] ?? '').trim()))) return;
    clear(out, h('p', {}, W.checkingFamily));
    out.className = 'test-result';
    let r;
    try {
      r = await backend.settings.connect(text, anyway);
    } catch (e) {
      clear(out, errorBlock(e));
      out.classList.add('bad');
      return;
    }
    this.showTest(out, r.test);
    if (r.connected) {
      this.render(r.settings);
      whenPlaced('remote', () => toast(r.test.ok ? W.connected : W.connectedLater));
      this.changed();
      return;
    }
    const ok = await confirmDialog(
      W.noAnswerTitle,
      W.noAnswer(connectionTestWords(r.test)),
      W.connectAnyway,
      false,
    );
    if (ok) await this.connect(text, out, true);
  }

  /** goBack connects again to the family engine Spark remembers (its
   * address and key, s), after a test: Dad sent them there before, so
   * nothing is asked. One that does not answer is not used: out says why
   * and Spark stays on this computer, the connection text open for a new
   * one. What Dad types meanwhile wins over what it says (typed counts). */
  private async goBack(s: SettingsView, out: HTMLElement, typed: () => number): Promise<void> {
    const before = typed();
    clear(out, h('p', {}, knownEngineWords.connecting));
    out.className = 'test-result';
    let r;
    try {
      r = await backend.settings.connect(`${s.remote_url}#${s.remote_token}`, false);
    } catch (e) {
      if (typed() !== before) return;
      clear(out, errorBlock(e));
      out.classList.add('bad');
      return;
    }
    if (r.connected) {
      this.render(r.settings);
      whenPlaced('remote', () => toast(knownEngineWords.connected));
      this.changed();
      return;
    }
    if (typed() !== before) return;
    clear(out, h('p', {}, knownEngineWords.failed(r.test)));
    out.className = 'test-result bad';
  }

  private async useLocal(): Promise<void> {
    try {
      this.render(await backend.settings.useLocal());
      whenPlaced('local', () => toast(W.nowLocal));
      this.changed();
    } catch (e) {
      toastError(e);
    }
  }

  private async savePippa(url: string, model: string, key: string): Promise<void> {
    try {
      this.render(await backend.settings.setPippa({ url, model, key }));
      toast(pippaSaved);
      // The cards and moments that said she is not set up hear it now.
      this.changed();
    } catch (e) {
      toastError(e);
    }
  }
}

/** whenPlaced calls fn once the status bar says the moments are kept at
 * engine (place.ts), at once if it does: a switch's toast never says
 * before the bar does where the moments are kept. */
function whenPlaced(engine: string, fn: () => void): void {
  if (place().engine === engine) {
    fn();
    return;
  }
  const off = onPlace((p) => {
    if (p.engine !== engine) return;
    off();
    fn();
  });
}

/** leftoversBlock says, when there are any, how many of the outbox's files
 * could not be removed from this computer yet (a program holding one open,
 * as antivirus does on Windows), in Dad's words; the folders and what the
 * last try said are behind Details. Spark retries them on its own. */
function leftoversBlock(l: Leftovers): HTMLElement | null {
  const said = leftoversWords(l);
  if (l.count === 0 || !said) return null;
  const el = sentence({ sentence: said, detail: (l.details ?? []).join('\n') }, 'hint');
  el.dataset['testid'] = 'leftovers';
  return el;
}

/** shipped: the languages this build reads, asked once. */
let shipped: Promise<string[]> | null = null;

/** wordsBlock is "Words in photos" (issue 37): the language the words in
 * Dad's photos are looked for in, one choice per language shipped, or
 * off. The reader (wordsreader.ts) takes the choice at once; saved is
 * told what Settings now holds. */
function wordsBlock(s: SettingsView, saved: (v: SettingsView) => void): HTMLElement {
  let current = s.words_lang;
  const status = h('p', { class: 'hint', 'aria-live': 'polite', 'data-testid': 'words-lang-saved' });
  const list = h('div', { 'data-testid': 'words-lang' });
  const mark = () => {
    for (const r of list.querySelectorAll<HTMLInputElement>('input[name=words-lang]')) r.checked = r.value === current;
  };
  const save = async (value: string) => {
    try {
      const v = await backend.settings.setWordsLang(value);
      current = v.words_lang;
      setWordsChoice(current);
      status.textContent = current === wordsOff ? WW.savedOff : WW.savedIn(WW.languageName(current));
      saved(v);
    } catch (e) {
      toastError(e);
    }
    mark();
  };
  const radio = (value: string, label: string) => {
    const id = `words-lang-${value}`;
    const input = h('input', { type: 'radio', name: 'words-lang', id, value });
    input.addEventListener('change', () => {
      if (input.checked) void save(value);
    });
    return h('div', { class: 'choice' }, input, h('label', { for: id }, label));
  };
  shipped ??= shippedLanguages();
  void shipped.then((codes) => {
    // A language chosen that this build no longer has is still shown, chosen.
    const all = current !== wordsOff && !codes.includes(current) ? [...codes, current] : codes;
    clear(list, ...all.map((c) => radio(c, WW.readIn(WW.languageName(c)))), radio(wordsOff, WW.off));
    mark();
  });
  return h('fieldset', { 'data-testid': 'words-section' }, h('legend', {}, WW.title), h('p', {}, WW.what), list, status);
}

/** aboutLine says which Spark this is (for whoever helps Dad), filled in
 * once the app's status is read. */
function aboutLine(): HTMLElement {
  const p = h('p', { 'data-testid': 'version' });
  void backend.settings.status().then((st) => {
    p.textContent = W.version(st.version);
  }).catch(() => {});
  return p;
}
