// Captions Dad types: kept as drafts at once (so neither Escape, nor a
// failed save, nor quitting Spark loses them) and saved one at a time per
// moment, newest words last. Two saves of one moment never run side by
// side: a reply to an older save can then neither overwrite newer words at
// the engine nor bring older words back into the window.
import { backend, type Moment } from './backend';

/** bases are, by moment id, the caption each draft was typed from (the
 * one the window showed), in localStorage beside the drafts: saved with
 * the draft, so that a caption changed meanwhile on another computer is
 * kept beside Dad's, not replaced. A draft kept by a Spark before bases
 * has none, and is saved from the caption shown when it is saved. */
const bases = {
  all(): Record<string, string> {
    try {
      return JSON.parse(localStorage.getItem('spark.captionBases') ?? '{}') as Record<string, string>;
    } catch {
      return {};
    }
  },
  get(id: string): string | undefined {
    return this.all()[id];
  },
  set(id: string, base: string): void {
    localStorage.setItem('spark.captionBases', JSON.stringify({ ...this.all(), [id]: base }));
  },
  delete(id: string): void {
    const a = this.all();
    delete a[id];
    localStorage.setItem('spark.captionBases', JSON.stringify(a));
  },
};

/** drafts are captions typed and not saved yet, by moment id, in
 * localStorage. */
export const drafts = {
  all(): Record<string, string> {
    try {
      return JSON.parse(localStorage.getItem('spark.captions') ?? '{}') as Record<string, string>;
    } catch {
      return {};
    }
  },
  get(id: string): string | undefined {
    return this.all()[id];
  },
  has(id: string): boolean {
    return id in this.all();
  },
  /** set keeps text as the draft; base, the caption shown when Dad
   * began to type it, is kept with the first draft of a save. */
  set(id: string, text: string, base: string): void {
    localStorage.setItem('spark.captions', JSON.stringify({ ...this.all(), [id]: text }));
    if (bases.get(id) === undefined) bases.set(id, base);
  },
  delete(id: string): void {
    const a = this.all();
    delete a[id];
    localStorage.setItem('spark.captions', JSON.stringify(a));
    bases.delete(id);
  },
};

const running = new Map<string, Promise<Moment | null>>();

/** saving tells whether a caption of the moment is being saved now. */
export function saving(id: string): boolean {
  return running.has(id);
}

/**
 * saveCaption saves the moment's draft, and again while newer words were
 * typed meanwhile, until no draft is left; it answers the moment as the
 * last save left it (null when there was nothing to save). A call while a
 * save runs joins it: the running save picks up the newest draft before it
 * ends. A failed save keeps the draft and rejects. shown is the caption
 * the window shows now, the base of a draft kept without one.
 */
export function saveCaption(id: string, shown: string): Promise<Moment | null> {
  const now = running.get(id);
  if (now) return now;
  if (!drafts.has(id)) return Promise.resolve(null);
  const p = (async () => {
    try {
      let last: Moment | null = null;
      // Whether any save brought the moment back from Recently deleted.
      let back = false;
      for (let text = drafts.get(id); text !== undefined; text = drafts.get(id)) {
        const saved: Moment = await backend.moments.setCaption(id, text, bases.get(id) ?? shown);
        back ||= saved.brought_back;
        last = { ...saved, brought_back: back };
        if (drafts.get(id) === text) drafts.delete(id);
        // Words typed meanwhile were typed over what this save left.
        else bases.set(id, saved.caption);
      }
      return last;
    } finally {
      // In the same turn as the last look at the drafts: words typed after
      // it start a new save.
      running.delete(id);
    }
  })();
  running.set(id, p);
  return p;
}
