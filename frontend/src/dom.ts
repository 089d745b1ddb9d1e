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

const toasts = (): HTMLElement => {
  let el = document.getElementById('toasts');
  if (!el) {
    el = h('div', { id: 'toasts', role: 'status', 'aria-live': 'polite' });
    document.body.append(el);
  }
  return el;
};

/** toast shows a short message for a few seconds; errors stay longer. */
export function toast(message: string, kind: 'info' | 'error' = 'info'): void {
  const t = h('div', { class: `toast toast-${kind}` }, message);
  toasts().append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 9000 : 4000);
}

/** confirm asks a yes/no question in a modal dialog. */
export function confirmDialog(title: string, body: string, yes: string, danger = true): Promise<boolean> {
  return new Promise((resolve) => {
    const dlg = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
    const done = (v: boolean) => {
      dlg.close();
      dlg.remove();
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

export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
