import { backend, type MoveView } from './backend';
import { h, clear, detailsOf } from './dom';
import { toastError } from './feedback';
import { problem, moveWords } from './words';

// ---- Bringing moments along from the other engine (app/move.go) ----

/** Where a MoveBlock stands: in Settings, under the choice of engine, or
 * at the top of Moments. */
export type MoveSlot = 'settings' | 'moments';

/** MoveBlock: once Spark uses the family engine, says how many of the
 * moments kept on this computer the family engine lacks, and offers to
 * bring them along (the same copy as `spark-engine push`), with a progress
 * bar; back on this computer's engine, the same for the family engine's
 * moments this computer lacks (the Go side words both ways: one source,
 * Settings.MoveCheck, for Settings and Moments alike). It is empty when
 * there is no other engine to bring moments from. Leaving the screen does
 * not stop it; pressing the button again goes on from where it stopped.
 * Nothing is deleted anywhere. In Moments it speaks only of this
 * computer's moments the family engine lacks: to offer, to show the bar,
 * or to say it finished; a count it could not make is Settings' to tell. */
export class MoveBlock {
  /** shown is the block of each slot (Settings makes a new one at each
   * render): each hears every move event. */
  private static shown = new Map<MoveSlot, MoveBlock>();
  private static listening = false;
  /** events counts the move events seen: one that came before the
   * button's answer is newer than it. */
  private static events = 0;
  readonly el: HTMLElement;
  /** checkedAt is when this block last asked how many moments are lacking. */
  private checkedAt = 0;

  private constructor(private readonly slot: MoveSlot) {
    // In Moments the block is hidden until it has something to say: an
    // empty box above the tiles would vanish and move every tile up.
    const moments = slot === 'moments';
    this.el = h('div', { class: moments ? 'move move-moments' : 'move', 'data-testid': moments ? 'moments-move' : 'move', 'aria-live': 'polite', hidden: moments });
  }

  /** mount makes the block of a slot (replacing the one before) and fills it. */
  static mount(slot: MoveSlot): HTMLElement {
    return MoveBlock.make(slot).el;
  }

  /** make makes the block of a slot and fills it. */
  static make(slot: MoveSlot): MoveBlock {
    const b = new MoveBlock(slot);
    MoveBlock.shown.set(slot, b);
    if (!MoveBlock.listening) {
      MoveBlock.listening = true;
      backend.onMove((v) => {
        MoveBlock.events++;
        for (const s of MoveBlock.shown.values()) s.show(v);
      });
    }
    void b.check();
    return b;
  }

  /** check asks again how many moments are lacking; fresh: unless it asked
   * in the last `fresh` ms. */
  async check(fresh = 0): Promise<void> {
    if (fresh > 0 && Date.now() - this.checkedAt < fresh) return;
    this.checkedAt = Date.now();
    try {
      this.show(await backend.settings.moveCheck());
    } catch {
      clear(this.el); // nothing to offer while Spark is not ready
      if (this.slot === 'moments') this.el.hidden = true;
    }
  }

  private async start(): Promise<void> {
    try {
      const seen = MoveBlock.events;
      const v = await backend.settings.bringAlong();
      if (MoveBlock.events === seen) for (const s of MoveBlock.shown.values()) s.show(v);
    } catch (e) {
      toastError(e);
    }
  }

  show(v: MoveView): void {
    this.el.hidden = false;
    // Moments offers only to bring this computer's moments to the family
    // engine Spark now uses (its moments are missing from the timeline);
    // the way back is Settings' to offer.
    if (this.slot === 'moments' && v.way !== 'to_family') {
      clear(this.el);
      this.el.hidden = true;
      return;
    }
    const said = moveWords(v);
    if (v.running) {
      const bar = h('progress', { max: String(Math.max(v.total, 1)), value: String(v.done), 'data-testid': 'move-progress', 'aria-label': said.message });
      const pct = v.total > 0 ? Math.floor((100 * v.done) / v.total) : 0;
      clear(this.el, h('p', {}, `${said.message} ${pct}%`), bar, h('p', { class: 'hint' }, said.going));
      return;
    }
    const parts: (HTMLElement | null)[] = [];
    const quiet = this.slot === 'moments' && !v.finished;
    const why = v.problem ? problem(v.problem) : null;
    if (said.message && !quiet) {
      parts.push(h('p', { class: v.finished ? 'ok-text' : 'warn-text', 'data-testid': 'move-message' }, why ? `${said.message} ${why.sentence}` : said.message));
      const detail = why?.detail || v.reason;
      if (detail) parts.push(detailsOf(detail));
    }
    if (v.available && v.lacking > 0) {
      parts.push(
        h('p', { 'data-testid': 'move-lacking' }, said.offer),
        h('button', { type: 'button', class: 'primary', 'data-testid': 'move-start', onclick: () => void this.start() }, said.button),
        h('p', { class: 'hint' }, said.hint),
      );
    }
    clear(this.el, ...parts);
    // In Moments an empty block takes no room.
    if (this.slot === 'moments') this.el.hidden = parts.length === 0;
  }
}
