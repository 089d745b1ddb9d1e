// This computer's copy of the family engine (app/sync.go): a line in the
// status bar ("Up to date", or "Offline: showing what this computer has,
// as of <time>") and, in Settings, what stopped the copy and the button
// that fetches it again. With the engine on this computer there is no
// copy to speak of, and both stay hidden.
import { backend, errorText, type SyncStatus } from './backend';
import { h, clear } from './dom';
import { sizeWords, syncProblemWords, settingsWords, syncWords, syncBarWords, syncWhatToDo } from './words';
import { toastError } from './feedback';

/** SyncLine is the status bar's part: main.ts puts its element in the bar
 * (which it redraws; the element keeps itself up to date). */
export class SyncLine {
  readonly el: HTMLElement;
  private text = h('span', { 'data-testid': 'sync-status' });
  private link: HTMLButtonElement;

  private last: SyncStatus | null = null;
  /** What the status bar's other half knows (App.renderStatus): whether
   * the engine answers, and how many things wait in the outbox. */
  private bar = { answers: false, waiting: 0 };

  constructor(openSettings: () => void) {
    this.link = h('button', { type: 'button', class: 'link warn', hidden: true, onclick: openSettings }, syncWhatToDo);
    this.el = h('span', { class: 'sync-line', hidden: true }, this.text, this.link);
    backend.onSync((s) => this.render(s));
    void this.refresh();
    // "as of" and the state change without events too (an engine chosen).
    window.setInterval(() => void this.refresh(), 5000);
  }

  async refresh(): Promise<void> {
    try {
      this.render(await backend.sync.status());
    } catch {
      // Not started yet: the bar says so already.
    }
  }

  /** agree is called by the status bar each time it draws its other
   * half, so that the two halves say one thing: nothing "Up to date"
   * beside something waiting to be sent, nothing "Offline" beside an
   * engine that answers. */
  agree(answers: boolean, waiting: number): void {
    if (answers === this.bar.answers && waiting === this.bar.waiting) return;
    this.bar = { answers, waiting };
    if (this.last) this.render(this.last);
  }

  private render(s: SyncStatus): void {
    this.last = s;
    // The engine answered the window's check just now; the sync it set
    // off has not ended yet: the copy is being brought up to date.
    const shown: SyncStatus = this.bar.answers && s.state === 'offline' ? { ...s, state: 'starting' } : s;
    // A sync got through while the bar last found the engine away: the
    // bar is asked again (App, on the same event); until it says so,
    // nothing "Up to date" beside "can't be reached".
    const words = shown.state === 'uptodate' && !this.bar.answers ? '' : syncBarWords(shown, this.bar.waiting);
    this.el.hidden = words === '';
    this.text.textContent = words;
    this.text.dataset.state = shown.state;
    this.text.classList.toggle('warn', shown.state === 'problem' || shown.state === 'offline');
    this.text.title = syncProblemWords(s);
    this.link.hidden = s.state !== 'problem';
  }
}

/** syncBlock is Settings' part: where this computer's copy stands, and,
 * when the copy stopped, why and "Rebuild this computer's copy". */
export function syncBlock(): HTMLElement {
  const body = h('div', { 'aria-live': 'polite' });
  const block = h('fieldset', { class: 'sync-block', 'data-testid': 'sync-block', hidden: true }, h('legend', {}, settingsWords.copy), body);
  let roomOpen = false;
  const render = (s: SyncStatus) => {
    block.hidden = s.state === 'local';
    if (block.hidden) return;
    const usage = settingsWords.copyUsage(sizeWords(s.copy_bytes));
    if (s.state !== 'problem') {
      // The room the small photos take, and may take, is for whoever
      // helps Dad: behind Details, which stays open across redraws.
      const room = h('details', { class: 'details', 'data-testid': 'sync-room' }, h('summary', {}, settingsWords.copyRoom), h('p', { class: 'hint' }, usage), limitRow(s, render));
      room.open = roomOpen;
      room.addEventListener('toggle', () => (roomOpen = room.open));
      clear(
        body,
        h('p', {}, settingsWords.copyWhy, syncWords(s), '.'),
        room,
      );
      return;
    }
    const rebuild = h('button', { type: 'button', class: 'primary', 'data-testid': 'sync-rebuild' }, settingsWords.rebuild);
    rebuild.addEventListener('click', () => {
      rebuild.disabled = true;
      rebuild.textContent = settingsWords.rebuilding;
      backend.sync
        .rebuild()
        .then(render)
        .catch((e: unknown) => {
          toastError(e);
          rebuild.disabled = false;
          rebuild.textContent = settingsWords.rebuild;
        });
    });
    clear(
      body,
      h('p', { class: 'warn-text', role: 'alert', 'data-testid': 'sync-problem' }, syncProblemWords(s)),
      h('p', { class: 'hint' }, settingsWords.rebuildHint),
      h('div', { class: 'row' }, rebuild),
    );
  };
  backend.sync.status().then(render, (e: unknown) => clear(body, h('p', { class: 'warn-text' }, errorText(e))));
  const off = backend.onSync((s) => {
    if (!block.isConnected) {
      off();
      return;
    }
    render(s);
  });
  return block;
}

/** limitRow sets how much room the small photos may take here. */
function limitRow(s: SyncStatus, render: (s: SyncStatus) => void): HTMLElement {
  const gb = h('input', { id: 'sync-limit', type: 'number', min: '0.1', max: '10000', step: '0.5', 'data-testid': 'sync-limit' });
  gb.value = String(Math.round((s.cache_bytes / 2 ** 30) * 10) / 10);
  const save = h('button', { type: 'button' }, settingsWords.save);
  save.addEventListener('click', () => {
    backend.sync
      .setCacheLimit(Number(gb.value))
      .then(render)
      .catch((e: unknown) => toastError(e));
  });
  return h(
    'div',
    {},
    h('label', { for: 'sync-limit' }, settingsWords.copyLimit),
    h('div', { class: 'row' }, gb, save),
    h('p', { class: 'hint' }, settingsWords.copyLimitHint),
  );
}
