// "Keep this phrase": words selected in a reading of the open moment are
// widened to whole words and offered in a small bar that floats above the
// selection, never over it nor over the line under it. It shows only once
// the mouse button is up (or the keys that moved the selection are), and
// it floats over the dialog rather than taking room in it, so nothing
// moves while the person selects. From the keyboard, a reading takes the
// focus: the arrow keys choose a word, Shift and an arrow more words,
// Enter keeps them and Escape lets go.
import { backend, type Moment } from './backend';
import { h, clear, toast } from './dom';
import { toastError } from './feedback';
import { wordRange, waitingWords, phraseBarWords, phraseKeptWords } from './words';

/** PhraseHost is what the bar needs of the dialog it floats over (the
 * moment dialog, moment.ts): the dialog and whether it is open, the bar's
 * element in it, and the moment it shows. */
export interface PhraseHost {
  readonly bar: HTMLElement;
  readonly dialog: HTMLDialogElement;
  readonly current: Moment | null;
  readonly isOpen: boolean;
}

export function attachPhraseBar(d: PhraseHost): void {
  const bar = d.bar;
  let down = false;
  const hide = () => (bar.hidden = true);
  d.dialog.addEventListener('pointerdown', (e) => {
    if (!bar.contains(e.target as Node)) {
      down = true;
      hide();
    }
  });
  document.addEventListener('pointerup', () => {
    if (!down) return;
    down = false;
    // After the browser has settled the selection of this click.
    window.setTimeout(() => offer(d), 0);
  });
  d.dialog.addEventListener('keyup', (e) => {
    if (e.shiftKey || e.key === 'Shift') offer(d);
  });
  // A selection made without the mouse (Shift and the arrow keys, a
  // screen reader) is offered once it has stopped changing.
  let settle = 0;
  document.addEventListener('selectionchange', () => {
    if (down) return;
    const sel = document.getSelection();
    clearTimeout(settle);
    if (!sel || sel.isCollapsed) hide();
    else if (d.isOpen) settle = window.setTimeout(() => offer(d), 300);
  });
  d.dialog.addEventListener('scroll', hide, { passive: true });
  d.dialog.addEventListener('keydown', (e) => chooseByKeys(d, e));
}

/** wordsOf is where each word of a reading's text starts and ends. */
function wordsOf(text: string): [number, number][] {
  return Array.from(text.matchAll(/[\p{L}\p{N}'’-]+/gu), (m) => [m.index, m.index + m[0].length] as [number, number]);
}

/** chosen is the words chosen from the keyboard in a reading: the first
 * and the last word's index (the first being where Shift started). */
const chosen = new WeakMap<HTMLElement, { from: number; to: number }>();

/** chooseByKeys lets the keyboard choose words in the focused reading and
 * keep them. */
function chooseByKeys(d: PhraseHost, e: KeyboardEvent): void {
  const el = e.target instanceof HTMLElement && e.target.classList.contains('reading-text') ? e.target : null;
  const node = el?.firstChild;
  if (!el || !node || node.nodeType !== Node.TEXT_NODE || e.altKey || e.ctrlKey || e.metaKey) return;
  const sel = document.getSelection();
  const mine = !!sel && !sel.isCollapsed && sel.rangeCount > 0 && el.contains(sel.getRangeAt(0).commonAncestorContainer);
  if (e.key === 'Enter') {
    if (!mine) return;
    e.preventDefault();
    const words = selectedWords(el, sel.getRangeAt(0));
    const m = d.current;
    if (words && m) void keep(d, words.words, m.id);
    return;
  }
  if (e.key === 'Escape') {
    if (!mine) return;
    // Let go of the words, not of the dialog.
    e.preventDefault();
    sel.removeAllRanges();
    d.bar.hidden = true;
    return;
  }
  const words = wordsOf(node.textContent ?? '');
  const n = words.length;
  if (n === 0 || !['ArrowRight', 'ArrowLeft', 'Home', 'End'].includes(e.key)) return;
  e.preventDefault();
  let c = mine ? chosen.get(el) : undefined;
  if (!c) c = { from: e.key === 'ArrowLeft' || e.key === 'End' ? n - 1 : 0, to: e.key === 'ArrowLeft' || e.key === 'End' ? n - 1 : 0 };
  else {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0;
    const to = e.key === 'Home' ? 0 : e.key === 'End' ? n - 1 : Math.max(0, Math.min(n - 1, (e.shiftKey ? c.to : step > 0 ? Math.max(c.from, c.to) : Math.min(c.from, c.to)) + step));
    c = e.shiftKey ? { from: c.from, to } : { from: to, to };
  }
  chosen.set(el, c);
  const a = words[Math.min(c.from, c.to)];
  const b = words[Math.max(c.from, c.to)];
  if (!a || !b || !sel) return;
  const r = document.createRange();
  r.setStart(node, a[0]);
  r.setEnd(node, b[1]);
  sel.removeAllRanges();
  sel.addRange(r);
}

/** selectedWords is a selection in a reading's text widened to whole
 * words, with where they start and end in it. */
function selectedWords(el: HTMLElement, range: Range): { words: string; s: number; e: number } | null {
  const text = el.textContent ?? '';
  const [s, e] = wordRange(text, offsetIn(el, range.startContainer, range.startOffset), offsetIn(el, range.endContainer, range.endOffset));
  const words = text.slice(s, e).replace(/\s+/g, ' ').trim();
  return words ? { words, s, e } : null;
}

/** readingOf is the reading text element holding a point, if any. */
function readingOf(node: Node | null): HTMLElement | null {
  const el = node instanceof Element ? node : node?.parentElement;
  return el?.closest<HTMLElement>('.reading-text') ?? null;
}

/** offsetIn is a selection point as an offset in el's text, clamped to it. */
function offsetIn(el: HTMLElement, node: Node, offset: number): number {
  const r = document.createRange();
  r.selectNodeContents(el);
  const text = el.textContent ?? '';
  if (!el.contains(node)) return r.comparePoint(node, offset) < 0 ? 0 : text.length;
  r.setEnd(node, offset);
  return r.toString().length;
}

function offer(d: PhraseHost): void {
  const bar = d.bar;
  const m = d.current;
  const sel = document.getSelection();
  if (!m || !sel || sel.rangeCount === 0 || sel.isCollapsed) {
    bar.hidden = true;
    return;
  }
  const range = sel.getRangeAt(0);
  const el = readingOf(range.startContainer) ?? readingOf(range.endContainer);
  if (!el || !d.dialog.contains(el)) {
    bar.hidden = true;
    return;
  }
  const got = selectedWords(el, range);
  const node = el.firstChild;
  if (!got || !node || node.nodeType !== Node.TEXT_NODE) {
    bar.hidden = true;
    return;
  }
  const { words, s, e } = got;
  // Show what will be kept: the selection itself snaps to the words.
  const snapped = document.createRange();
  snapped.setStart(node, s);
  snapped.setEnd(node, e);
  if (range.compareBoundaryPoints(Range.START_TO_START, snapped) !== 0 || range.compareBoundaryPoints(Range.END_TO_END, snapped) !== 0) {
    sel.removeAllRanges();
    sel.addRange(snapped);
  }
  const momentID = m.id;
  const short = words.length > 60 ? `${words.slice(0, 57)}…` : words;
  clear(
    bar,
    h('span', { class: 'keep-words' }, `“${short}”`),
    // Pressing the button must not drop the selection it is about.
    h('button', { type: 'button', class: 'primary', 'data-testid': 'keep-phrase', onmousedown: (ev: Event) => ev.preventDefault(), onclick: () => void keep(d, words, momentID) }, phraseBarWords.keep),
    h('button', { type: 'button', class: 'close', 'aria-label': phraseBarWords.notNow, onmousedown: (ev: Event) => ev.preventDefault(), onclick: () => { bar.hidden = true; sel.removeAllRanges(); } }, '✕'),
  );
  bar.hidden = false;
  place(bar, snapped.getBoundingClientRect(), el);
}

/** place floats the bar clear of the words chosen (r) and of the line
 * under them, so Dad can read on and widen the choice with the mouse:
 * above them; where there is no room above, under the line that follows
 * them; else beside the reading (text, its element); else at the top of
 * the window. Always inside the window. */
function place(bar: HTMLElement, r: DOMRect, text: HTMLElement): void {
  const cs = getComputedStyle(text);
  const line = parseFloat(cs.lineHeight) || 1.2 * parseFloat(cs.fontSize) || 24;
  const bw = bar.offsetWidth;
  const bh = bar.offsetHeight;
  const W = window.innerWidth;
  const H = window.innerHeight;
  const gap = 8;
  const t = text.getBoundingClientRect();
  // The band the bar keeps off: the chosen lines and the one under them.
  const band = { top: r.top, bottom: r.bottom + line };
  const centred = Math.max(gap, Math.min(W - bw - gap, r.left + r.width / 2 - bw / 2));
  const candidates: { left: number; top: number }[] = [
    { left: centred, top: r.top - bh - gap },
    { left: centred, top: band.bottom + gap },
    { left: t.right + gap, top: Math.max(gap, Math.min(H - bh - gap, r.top)) },
    { left: t.left - bw - gap, top: Math.max(gap, Math.min(H - bh - gap, r.top)) },
  ];
  const inside = (c: { left: number; top: number }) => c.left >= gap && c.top >= gap && c.left + bw <= W - gap && c.top + bh <= H - gap;
  const off = (c: { left: number; top: number }) =>
    c.top + bh <= band.top || c.top >= band.bottom || c.left >= t.right || c.left + bw <= t.left;
  const at = candidates.find((c) => inside(c) && off(c)) ?? { left: centred, top: gap };
  bar.style.left = `${at.left}px`;
  bar.style.top = `${at.top}px`;
}

async function keep(d: PhraseHost, text: string, momentID: string): Promise<void> {
  try {
    const p = await backend.phrases.keep(text, momentID);
    toast(phraseKeptWords(p.text, p.waits_for ? waitingWords(p.waits_for) : ''));
    d.bar.hidden = true;
    document.getSelection()?.removeAllRanges();
  } catch (e) {
    toastError(e);
  }
}
