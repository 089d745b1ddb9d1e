// Captions Dad types: kept as drafts at once (so neither Escape, nor a
// failed save, nor quitting Spark loses them) and saved one at a time per
// moment, newest words last. Two saves of one moment never run side by
// side: a reply to an older save can then neither overwrite newer words at
// the engine nor bring older words back into the window.
import { backend, type Moment } from './backend';

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
  set(id: string, text: string): void {
    localStorage.setItem('spark.captions', JSON.stringify({ ...this.all(), [id]: text }));
  },
  delete(id: string): void {
    const a = this.all();
    delete a[id];
    localStorage.setItem('spark.captions', JSON.stringify(a));
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
 * ends. A failed save keeps the draft and rejects.
 */
export function saveCaption(id: string): Promise<Moment | null> {
  const now = running.get(id);
  if (now) return now;
  if (!drafts.has(id)) return Promise.resolve(null);
  const p = (async () => {
    try {
      let last: Moment | null = null;
      for (let text = drafts.get(id); text !== undefined; text = drafts.get(id)) {
        last = await backend.moments.setCaption(id, text);
        if (drafts.get(id) === text) drafts.delete(id);
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
