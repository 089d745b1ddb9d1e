// Once per intent: the ids the window mints for Dad's writes (a note, a
// careful reading, a quick recall, asking Pippa again) are minted when he
// first acts and kept, on this computer, until that intent is over. Pressing
// the button again, or again after a lost answer or a restart, sends the same
// id, and the engine does the thing once. Only a deliberate new request
// ("Ask for another careful reading") mints a new one.
import { ulid } from './ulid';

const KEY = 'spark.intents';

interface Intent {
  id: string;
  /** asked is true once the Go side has the write (it answered). */
  asked: boolean;
}

function all(): Record<string, Intent> {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '{}') as Record<string, Intent>;
  } catch {
    return {};
  }
}

function save(a: Record<string, Intent>): void {
  localStorage.setItem(KEY, JSON.stringify(a));
}

export const intents = {
  /** id is the id of the intent named key, minted the first time. */
  id(key: string): string {
    const a = all();
    const had = a[key];
    if (had) return had.id;
    const id = ulid();
    a[key] = { id, asked: false };
    save(a);
    return id;
  },
  /** peek is the id of the intent, if Dad started it. */
  peek(key: string): string | undefined {
    return all()[key]?.id;
  },
  /** asked records that the Go side has the intent's write. */
  asked(key: string): void {
    const a = all();
    const had = a[key];
    if (!had) return;
    a[key] = { ...had, asked: true };
    save(a);
  },
  /** wasAsked tells whether the intent's write reached the Go side. */
  wasAsked(key: string): boolean {
    return all()[key]?.asked ?? false;
  },
  /** done forgets the intent: the next one is a new intent. */
  done(key: string): void {
    const a = all();
    if (!(key in a)) return;
    delete a[key];
    save(a);
  },
};
