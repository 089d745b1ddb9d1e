// Small DOM helpers: the UI builds its elements with h() and never sets
// innerHTML from data, so text from files or Pippa is always shown as text.
import { domWords } from './words';

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (typeof v === 'function') {
      el.addEventListener(k.replace(/^on/, '').toLowerCase(), v);
    } else if (k === 'class') {
      el.className = String(v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
  return el;
}

export function clear(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
}

/** toastHost is where toasts go: inside the topmost open modal dialog
 * when there is one (a modal dialog and its backdrop sit in the top layer,
 * above anything else in the page), at its foot, else in the window's own
 * band above the status bar. Either way they take their own room, in the
 * flow: a toast never covers a control (issue 36). */
function toastHost(): HTMLElement {
  let el = document.getElementById('toasts');
  if (!el) {
    el = h('div', { id: 'toasts', role: 'status', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  }
  const open = Array.from(document.querySelectorAll<HTMLDialogElement>('dialog[open]')).filter((d) => d.matches(':modal'));
  const dlg = open.at(-1);
  const bar = document.querySelector('#app > .statusbar');
  if (dlg) {
    if (el.parentElement !== dlg) dlg.append(el);
  } else if (bar) {
    if (el.nextElementSibling !== bar) bar.before(el);
  } else if (el.parentElement !== document.body) document.body.append(el);
  return el;
}

/** about is what a toast announces something about (a dialog, a screen):
 * the toast ends when that is no longer on screen. */
const about = new WeakMap<Element, Element>();

/** onScreen tells whether el is still what the person sees: in the page,
 * not hidden, in the topmost open modal dialog when there is one, and not
 * in a closed dialog. */
function onScreen(el: Element): boolean {
  if (!el.isConnected || el.closest('[hidden]')) return false;
  const dlg = el.closest('dialog');
  if (dlg && !dlg.open) return false;
  const top = Array.from(document.querySelectorAll<HTMLDialogElement>('dialog[open]')).filter((d) => d.matches(':modal')).at(-1);
  return !top || top.contains(el);
}

/** rehomeToasts moves the toasts to where they can be seen (a dialog opened
 * or closed, another screen shown), and ends those whose subject is no
 * longer on screen; dialogs and the tabs call it. */
export function rehomeToasts(): void {
  const el = document.getElementById('toasts');
  if (!el || el.childElementCount === 0) return;
  for (const t of Array.from(el.children)) {
    const of = about.get(t);
    if (of && !onScreen(of)) t.remove();
  }
  if (el.childElementCount > 0) toastHost();
}

/** Toast is a shown toast: end takes it away (its news is done); shown
 * tells whether it is still on screen. */
export interface Toast {
  end(): void;
  shown(): boolean;
}

/** MAX_TOASTS is how many toasts show at once: a newer one takes the place
 * of the oldest (an error outlives news, which goes first). */
const MAX_TOASTS = 2;

/** toast shows a short message for a few seconds, announced to screen
 * readers, above any dialog, in its own room (it covers no control); at
 * most two show at once. An error stays longer (20 s, or until closed) and can carry its
 * detail behind "Details". With opts.about (a dialog, a screen) it ends as
 * soon as that is no longer on screen; the caller ends it with the handle
 * when what it announced is done. */
export function toast(message: string, kind: 'info' | 'error' = 'info', detail = '', action?: { label: string; run: () => void }, opts: { about?: Element } = {}): Toast {
  const host = toastHost();
  const remove = () => {
    clearTimeout(timer);
    if (!t.isConnected) return;
    t.remove();
  };
  const close = h('button', { type: 'button', class: 'toast-close', 'aria-label': domWords.dismissToast, onclick: remove }, '✕');
  const t = h(
    'div',
    { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : null },
    h('p', {}, message),
    detail ? detailsOf(detail) : null,
    action ? h('button', { type: 'button', class: 'toast-action', onclick: () => { remove(); action.run(); } }, action.label) : null,
    close,
  );
  // At most two: news makes way before an error does, the oldest first.
  const shown = Array.from(host.children);
  while (shown.length >= MAX_TOASTS) {
    const at = Math.max(0, shown.findIndex((x) => !x.classList.contains('toast-error')));
    shown.splice(at, 1)[0]?.remove();
  }
  host.append(t);
  if (opts.about) about.set(t, opts.about);
  // Errors stay long enough to read and open Details; neither goes while
  // the pointer or the keyboard is on it, and goes a little after.
  const life = kind === 'error' ? 20000 : action ? 8000 : 5000;
  let timer = window.setTimeout(remove, life);
  const hold = () => clearTimeout(timer);
  const resume = () => {
    clearTimeout(timer);
    timer = window.setTimeout(remove, 3000);
  };
  t.addEventListener('mouseenter', hold);
  t.addEventListener('focusin', hold);
  t.addEventListener('mouseleave', resume);
  t.addEventListener('focusout', (e) => {
    if (!t.contains(e.relatedTarget as Node | null)) resume();
  });
  return { end: remove, shown: () => t.isConnected };
}

/** detailsOf is a closed "Details" disclosure holding raw text (an
 * engine's message, an address) that a helper may need. */
export function detailsOf(detail: string): HTMLElement {
  return h('details', { class: 'details' }, h('summary', {}, domWords.details), h('pre', {}, detail));
}

/** sentence shows an explained error: the sentence, then its detail behind
 * "Details". */
export function sentence(e: { sentence: string; detail: string }, cls = 'error-text'): HTMLElement {
  return h('div', { class: 'explained' }, h('p', { class: cls }, e.sentence), e.detail ? detailsOf(e.detail) : null);
}

/** confirm asks a yes/no question in a modal dialog. */
export function confirmDialog(title: string, body: string, yes: string, danger = true): Promise<boolean> {
  return choiceDialog(title, body, [{ label: yes, value: 'yes', danger }]).then((v) => v === 'yes');
}

/** Choice is one answer a choiceDialog offers besides Cancel. */
export interface Choice {
  label: string;
  value: string;
  /** danger: the answer loses something (red); else the app's colour. */
  danger?: boolean;
  testid?: string;
}

/** choiceDialog asks a question with Cancel and the choices given (the
 * safe one first); it answers with the value chosen, or null for Cancel
 * (or Escape). Cancel has the focus. */
export function choiceDialog(title: string, body: string, choices: Choice[]): Promise<string | null> {
  return new Promise((resolve) => {
    const dlg = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
    const done = (v: string | null) => {
      dlg.close();
      dlg.remove();
      rehomeToasts();
      resolve(v);
    };
    const no = h('button', { type: 'button', onclick: () => done(null) }, domWords.cancel);
    dlg.append(
      h('h2', { id: 'confirm-title' }, title),
      h('p', {}, body),
      h(
        'div',
        { class: 'row end' },
        no,
        ...choices.map((c) =>
          h('button', { type: 'button', class: c.danger ? 'danger' : 'primary', ...(c.testid ? { 'data-testid': c.testid } : {}), onclick: () => done(c.value) }, c.label),
        ),
      ),
    );
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(null);
    });
    document.body.append(dlg);
    dlg.showModal();
    rehomeToasts();
    no.focus();
  });
}

// when, the window's date and time, is made with the words (words.ts).
export { when } from './words';

/** clock formats an RFC 3339 time as a time of day. */
export function clock(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

