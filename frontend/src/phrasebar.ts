// "Keep this phrase": words selected in a reading of the open moment are
// widened to whole words and offered in a small bar that floats under the
// selection. It shows only once the mouse button is up (or the keys that
// moved the selection are), and it floats over the dialog rather than
// taking room in it, so nothing moves while the person selects.
import { backend } from './backend';
import { h, clear, toast } from './dom';
import { toastError } from './feedback';
import { wordRange } from './words';
import type { MomentDialog } from './moment';

export function attachPhraseBar(d: MomentDialog): void {
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

function offer(d: MomentDialog): void {
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
  const text = el.textContent ?? '';
  const [s, e] = wordRange(text, offsetIn(el, range.startContainer, range.startOffset), offsetIn(el, range.endContainer, range.endOffset));
  const words = text.slice(s, e).replace(/\s+/g, ' ').trim();
  const node = el.firstChild;
  if (!words || !node || node.nodeType !== Node.TEXT_NODE) {
    bar.hidden = true;
    return;
  }
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
    h('button', { type: 'button', class: 'primary', 'data-testid': 'keep-phrase', onmousedown: (ev: Event) => ev.preventDefault(), onclick: () => void keep(d, words, momentID) }, 'Keep this phrase'),
    h('button', { type: 'button', class: 'close', 'aria-label': 'Not now', onmousedown: (ev: Event) => ev.preventDefault(), onclick: () => { bar.hidden = true; sel.removeAllRanges(); } }, '✕'),
  );
  bar.hidden = false;
  // Float under the selection, inside the window.
  const r = snapped.getBoundingClientRect();
  const bw = bar.offsetWidth;
  const bh = bar.offsetHeight;
  const left = Math.max(8, Math.min(window.innerWidth - bw - 8, r.left + r.width / 2 - bw / 2));
  let top = r.bottom + 8;
  if (top + bh > window.innerHeight - 8) top = Math.max(8, r.top - bh - 8);
  bar.style.left = `${left}px`;
  bar.style.top = `${top}px`;
}

async function keep(d: MomentDialog, text: string, momentID: string): Promise<void> {
  try {
    const p = await backend.phrases.keep(text, momentID);
    toast(p.waiting ? `Kept “${p.text}”. You find it under Phrases. ${p.waiting}` : `Kept “${p.text}”. You find it under Phrases.`);
    d.bar.hidden = true;
    document.getSelection()?.removeAllRanges();
  } catch (e) {
    toastError(e);
  }
}
