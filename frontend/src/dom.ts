// Small DOM helpers: the UI builds its elements with h() and never sets
// innerHTML from data, so text from files or Pippa is always shown as text.

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
 * above anything else in the page), else the page itself. */
function toastHost(): HTMLElement {
  let el = document.getElementById('toasts');
  if (!el) {
    el = h('div', { id: 'toasts', role: 'status', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  }
  const open = Array.from(document.querySelectorAll<HTMLDialogElement>('dialog[open]')).filter((d) => d.matches(':modal'));
  const host = open.at(-1) ?? document.body;
  if (el.parentElement !== host) host.append(el);
  return el;
}

/** rehomeToasts moves the toasts to where they can be seen (a dialog opened
 * or closed); dialogs call it. */
export function rehomeToasts(): void {
  const el = document.getElementById('toasts');
  if (el && el.childElementCount > 0) toastHost();
}

/** toast shows a short message for a few seconds, announced to screen
 * readers, above any dialog. An error stays longer (20 s, or until closed)
 * and can carry its detail behind "Details". */
export function toast(message: string, kind: 'info' | 'error' = 'info', detail = '', action?: { label: string; run: () => void }): void {
  const host = toastHost();
  const close = h('button', { type: 'button', class: 'toast-close', 'aria-label': 'Dismiss this message', onclick: () => t.remove() }, '✕');
  const t = h(
    'div',
    { class: `toast toast-${kind}`, role: kind === 'error' ? 'alert' : null },
    h('p', {}, message),
    detail ? detailsOf(detail) : null,
    action ? h('button', { type: 'button', class: 'toast-action', onclick: () => { t.remove(); action.run(); } }, action.label) : null,
    close,
  );
  host.append(t);
  {
    // Errors stay long enough to read and open Details; neither goes while
    // the pointer or the keyboard is on it.
    let timer = window.setTimeout(() => t.remove(), kind === 'error' ? 20000 : action ? 8000 : 5000);
    // Not while the person reads it or reaches for its button.
    const hold = () => clearTimeout(timer);
    const resume = () => (timer = window.setTimeout(() => t.remove(), 3000));
    t.addEventListener('mouseenter', hold);
    t.addEventListener('focusin', hold);
    t.addEventListener('mouseleave', resume);
  }
}

/** detailsOf is a closed "Details" disclosure holding raw text (an
 * engine's message, an address) that a helper may need. */
export function detailsOf(detail: string): HTMLElement {
  return h('details', { class: 'details' }, h('summary', {}, 'Details'), h('pre', {}, detail));
}

/** sentence shows an explained error: the sentence, then its detail behind
 * "Details". */
export function sentence(e: { sentence: string; detail: string }, cls = 'error-text'): HTMLElement {
  return h('div', { class: 'explained' }, h('p', { class: cls }, e.sentence), e.detail ? detailsOf(e.detail) : null);
}

/** confirm asks a yes/no question in a modal dialog. */
export function confirmDialog(title: string, body: string, yes: string, danger = true): Promise<boolean> {
  return new Promise((resolve) => {
    const dlg = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
    const done = (v: boolean) => {
      dlg.close();
      dlg.remove();
      rehomeToasts();
      resolve(v);
    };
    const no = h('button', { type: 'button', onclick: () => done(false) }, 'Cancel');
    dlg.append(
      h('h2', { id: 'confirm-title' }, title),
      h('p', {}, body),
      h('div', { class: 'row end' }, no, h('button', { type: 'button', class: danger ? 'danger' : 'primary', onclick: () => done(true) }, yes)),
    );
    dlg.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.append(dlg);
    dlg.showModal();
    rehomeToasts();
    no.focus();
  });
}

/** when formats an RFC 3339 time for a person. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function when(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return dateTime.format(d);
}

/** clock formats an RFC 3339 time as a time of day. */
export function clock(iso: string): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

