// Recently deleted: the moments deleted in the last 30 days, each with when
// it was deleted and a Restore button (app Moments.Deleted and
// Moments.Restore). What Dad deleted or restored and the engine has not
// got yet shows as he did it: the list is read through the outbox's view.
// While the dialog is open, a delete or a restore made elsewhere (another
// computer, another window) is shown as it comes.
import { backend, type Moment } from './backend';
import { onMoment } from './store';
import { h, clear, toast, rehomeToasts } from './dom';
import { toastError, errorBlock } from './feedback';
import { deletedWords, deletedTitle } from './words';

/** restoreMoment brings a deleted moment back and says so; false when it
 * could not (the error is said). */
export async function restoreMoment(m: Moment): Promise<boolean> {
  try {
    await backend.moments.restore(m.id);
    toast(deletedWords.restored(deletedTitle(m)));
    return true;
  } catch (e) {
    toastError(e);
    return false;
  }
}

/** RecentlyDeleted is the dialog that lists Recently deleted. */
export class RecentlyDeleted {
  private dlg = h('dialog', { class: 'deleted-dialog', 'aria-labelledby': 'deleted-title', 'data-testid': 'deleted-dialog' });
  private list = h('ul', { class: 'deleted-list', 'aria-label': deletedWords.heading });
  private status = h('div', { class: 'muted', 'data-testid': 'deleted-status', role: 'status' });

  constructor() {
    const close = h('button', { type: 'button', onclick: () => this.dlg.close() }, deletedWords.close);
    this.dlg.append(
      h('div', { class: 'row between' }, h('h2', { id: 'deleted-title' }, deletedWords.heading), close),
      h('p', {}, deletedWords.said),
      this.status,
      this.list,
    );
    this.dlg.addEventListener('close', () => rehomeToasts());
    document.body.append(this.dlg);
    // A moment deleted, restored or changed anywhere: the open list is
    // read again, once for a burst of them.
    onMoment(() => {
      if (!this.dlg.open) return;
      clearTimeout(this.again);
      this.again = setTimeout(() => void this.read(), 250);
    });
  }

  private again: ReturnType<typeof setTimeout> | undefined;
  /** reads counts the reads of the list, so that only the newest is shown. */
  private reads = 0;

  /** open shows the dialog and reads the list. */
  async open(): Promise<void> {
    if (!this.dlg.open) this.dlg.showModal();
    rehomeToasts();
    clear(this.list);
    clear(this.status, deletedWords.reading);
    await this.read();
  }

  /** read reads the list and shows it. The rows already shown stay as
   * they are (a button Dad is on keeps its focus); those gone are taken
   * out and new ones put in their place in the order the list comes in. */
  private async read(): Promise<void> {
    const n = ++this.reads;
    let ms: Moment[];
    try {
      ms = (await backend.moments.deleted('', 200)).moments ?? [];
    } catch (e) {
      if (n === this.reads) clear(this.status, errorBlock(e));
      return;
    }
    if (n !== this.reads) return;
    const ids = new Set(ms.map((m) => m.id));
    const shown = new Map<string, Element>();
    for (const li of [...this.list.children]) {
      const id = li.getAttribute('data-moment') ?? '';
      if (ids.has(id)) shown.set(id, li);
      else li.remove();
    }
    let next = this.list.firstElementChild;
    for (const m of ms) {
      const li = shown.get(m.id);
      if (li !== undefined && li === next) next = li.nextElementSibling;
      else this.list.insertBefore(li ?? this.row(m), next);
    }
    clear(this.status, ms.length === 0 ? deletedWords.empty : '');
  }

  private row(m: Moment): HTMLElement {
    const title = deletedTitle(m);
    const restore = h('button', { type: 'button', class: 'primary', 'data-testid': 'deleted-restore', 'aria-label': `${deletedWords.restore}: ${title}` }, deletedWords.restore);
    const li = h(
      'li',
      { class: 'deleted-row', 'data-testid': 'deleted-row', 'data-moment': m.id },
      m.thumb ? h('img', { class: 'deleted-thumb', src: m.thumb, alt: '' }) : h('span', { class: 'deleted-thumb note-face' }),
      h('div', { class: 'deleted-text' }, h('span', { class: 'deleted-name' }, title), h('span', { class: 'muted' }, deletedWords.when(m.deleted_at))),
      restore,
    );
    restore.addEventListener('click', async () => {
      restore.disabled = true;
      if (!(await restoreMoment(m))) {
        restore.disabled = false;
        return;
      }
      li.remove();
      if (this.list.children.length === 0) clear(this.status, deletedWords.empty);
    });
    return li;
  }
}
