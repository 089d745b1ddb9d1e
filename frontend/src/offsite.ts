// Settings' "Off-site copy" (app/offsite.go): where the engine on this
// computer keeps its off-site copy (a folder on an external disk, or a
// storage provider), a Test, Save and Turn off, the recovery text to
// print, and the status line. With a family engine, its copy's status
// and who looks after it. Both read the copy from the health of the
// engine in use (Settings.Offsite), as the status bar does (main.ts).
import { backend, BackendError, canceled, type Offsite, type OffsiteView } from './backend';
import { offsiteKind } from './codes';
import { h, clear, toast, detailsOf, confirmDialog } from './dom';
import { errorBlock, toastError } from './feedback';
import { offsiteStatusWords, offsiteTestWords, offsiteWords as w, recoveryWords } from './words';

/** every is how often the section reads the copy's status while shown. */
const every = 5000;

/** offsiteBlock is Settings' Off-site copy section. It reads the copy's
 * status at once and every few seconds while it is on screen; its form
 * is drawn once, and again only after Save or Turn off, so a read never
 * redraws under Dad's hands. */
export function offsiteBlock(): HTMLElement {
  // Read every few seconds: not a live region, which would say it again
  // each time; the test's result is one.
  const status = h('div', { 'data-testid': 'offsite-status-block' });
  const form = h('div', {});
  const el = h('fieldset', { class: 'offsite', 'data-testid': 'offsite' }, h('legend', {}, w.legend), status, form);
  let drawn = '';
  const load = async (): Promise<void> => {
    let v: OffsiteView;
    try {
      v = await backend.settings.offsite();
    } catch (e) {
      clear(status, errorBlock(e));
      return;
    }
    drawStatus(status, v);
    // The form is drawn for the engine in use and the choice saved; a
    // read that finds them as drawn leaves it alone.
    const key = `${v.engine}|${JSON.stringify(v.choice)}`;
    if (key === drawn) return;
    drawn = key;
    clear(
      form,
      v.engine === 'remote'
        ? null
        : drawForm(v, (next) => {
            drawn = '';
            drawStatus(status, next);
            void load();
          }),
    );
  };
  void load();
  const timer = window.setInterval(() => {
    if (!el.isConnected) {
      window.clearInterval(timer);
      return;
    }
    void load();
  }, every);
  return el;
}

/** drawStatus says how the copy of the engine in use stands; words as
 * drawn are left alone (an open Details stays open). */
function drawStatus(out: HTMLElement, v: OffsiteView): void {
  const family = v.engine === 'remote';
  const said = offsiteStatusWords(v.health, family ? '' : v.choice.kind);
  const key = JSON.stringify([v.engine, v.reachable, v.choice.kind, said, v.health?.reason ?? '']);
  if (out.dataset['said'] === key) return;
  out.dataset['said'] = key;
  if (!v.reachable) {
    clear(out, h('p', { 'data-testid': 'offsite-status' }, family ? w.familyAway : ''));
    return;
  }
  if (!said.line) {
    clear(out, h('p', { 'data-testid': 'offsite-status' }, family ? w.familyNone : v.choice.kind ? '' : w.notSet));
    return;
  }
  clear(
    out,
    h('p', { 'data-testid': 'offsite-status', 'data-state': v.health?.state ?? '', class: said.trouble ? 'warn-text' : '' }, h('strong', {}, said.line)),
    said.advice ? h('p', { 'data-testid': 'offsite-advice' }, said.advice) : null,
    said.trouble && v.health?.reason ? detailsOf(v.health.reason) : null,
    family && !said.trouble ? h('p', { class: 'hint' }, w.familyLooksAfter) : null,
  );
}

/** drawForm is the choice of place for the engine on this computer's
 * copy, drawn from v; saved calls back with the view after a Save or a
 * Turn off. */
function drawForm(v: OffsiteView, saved: (v: OffsiteView) => void): HTMLElement {
  const c = v.choice;
  const field = (id: string, type: string, value: string, extra: Record<string, string> = {}) => {
    const i = h('input', { id, type, autocomplete: 'off', spellcheck: 'false', ...extra });
    i.value = value;
    return i;
  };
  const folderKind = h('input', { type: 'radio', name: 'offsite-kind', id: 'offsite-kind-folder', value: offsiteKind.folder });
  const providerKind = h('input', { type: 'radio', name: 'offsite-kind', id: 'offsite-kind-provider', value: offsiteKind.provider });
  folderKind.checked = c.kind !== offsiteKind.provider;
  providerKind.checked = c.kind === offsiteKind.provider;
  const folder = field('offsite-folder', 'text', c.folder ?? '', { placeholder: '/media/dad/Backup/Spark' });
  const address = field('offsite-address', 'url', c.address ?? '', { placeholder: 'https://s3.eu-central-003.backblazeb2.com' });
  const bucket = field('offsite-bucket', 'text', c.bucket ?? '', { placeholder: 'family-photos/spark', 'aria-describedby': 'offsite-bucket-help' });
  const keyId = field('offsite-key-id', 'text', c.key_id ?? '');
  const secret = field('offsite-secret', 'password', c.secret ?? '');
  const result = h('div', { class: 'test-result', 'aria-live': 'polite', 'data-testid': 'offsite-test' });

  const choose = h('button', { type: 'button', onclick: () => void pick() }, w.choose);
  const folderFields = h('div', { class: 'fields' }, h('label', { for: 'offsite-folder' }, w.folder), h('div', { class: 'row nowrap' }, folder, choose));
  const providerFields = h(
    'div',
    {},
    h('p', { class: 'hint' }, w.providerHint),
    h(
      'div',
      { class: 'fields' },
      h('label', { for: 'offsite-address' }, w.address),
      address,
      h('label', { for: 'offsite-bucket' }, w.bucket),
      h('div', {}, bucket, h('p', { class: 'hint', id: 'offsite-bucket-help' }, w.bucketHint)),
      h('label', { for: 'offsite-key-id' }, w.keyId),
      keyId,
      h('label', { for: 'offsite-secret' }, w.secret),
      secret,
    ),
  );
  const show = () => {
    folderFields.hidden = !folderKind.checked;
    providerFields.hidden = !providerKind.checked;
  };
  show();
  for (const r of [folderKind, providerKind]) r.addEventListener('change', () => {
    show();
    clear(result);
  });
  // What a test said of the place before is not said of the place now.
  for (const f of [folder, address, bucket, keyId, secret]) f.addEventListener('input', () => clear(result));

  const chosen = (): Offsite => (folderKind.checked
    ? { kind: offsiteKind.folder, folder: folder.value }
    : { kind: offsiteKind.provider, address: address.value, bucket: bucket.value, key_id: keyId.value, secret: secret.value });

  const pick = async () => {
    try {
      folder.value = await backend.settings.chooseOffsiteFolder({ title: w.chooseTitle });
      clear(result);
      folder.focus();
    } catch (e) {
      if (!canceled(e)) toastError(e);
    }
  };
  const say = (ok: boolean, code: string, kind: string, detail: string) => {
    clear(result, h('p', {}, offsiteTestWords(code, kind)), !ok && detail ? detailsOf(detail) : null);
    result.className = `test-result ${ok ? 'ok' : 'bad'}`;
  };
  const test = async () => {
    const o = chosen();
    clear(result, h('p', {}, w.testing));
    result.className = 'test-result';
    try {
      const r = await backend.settings.testOffsite(o);
      say(r.ok, r.code, o.kind, r.detail);
    } catch (e) {
      clear(result, errorBlock(e));
      result.className = 'test-result bad';
    }
  };
  const save = async () => {
    const o = chosen();
    clear(result, h('p', {}, w.testing));
    result.className = 'test-result';
    try {
      const next = await backend.settings.setOffsite(o);
      toast(w.saved);
      saved(next);
    } catch (e) {
      // A place that fails its test is refused with the test's code.
      if (e instanceof BackendError) say(false, e.code, o.kind, e.error.detail);
      else toastError(e);
    }
  };
  const turnOff = async () => {
    if (!(await confirmDialog(w.turnOffTitle, w.turnOffBody, w.turnOff))) return;
    try {
      const next = await backend.settings.turnOffOffsite();
      toast(w.turnedOff);
      saved(next);
    } catch (e) {
      toastError(e);
    }
  };

  return h(
    'div',
    {},
    h('p', { class: 'hint' }, w.why),
    h('div', { class: 'choice' }, folderKind, h('label', { for: 'offsite-kind-folder' }, w.folderChoice)),
    h('div', { class: 'choice' }, providerKind, h('label', { for: 'offsite-kind-provider' }, w.providerChoice)),
    folderFields,
    providerFields,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', 'data-testid': 'offsite-test-button', onclick: () => void test() }, w.test),
      h('button', { type: 'button', class: 'primary', 'data-testid': 'offsite-save', onclick: () => void save() }, w.save),
      c.kind ? h('button', { type: 'button', 'data-testid': 'offsite-off', onclick: () => void turnOff() }, w.turnOff) : null,
    ),
    result,
    c.kind ? recoveryBlock(v) : null,
  );
}

/** recoveryBlock is the recovery text, to print or copy. */
function recoveryBlock(v: OffsiteView): HTMLElement {
  const text = recoveryWords(v.recovery);
  const area = h('textarea', { id: 'offsite-recovery', class: 'mono recovery', readonly: true, rows: 9, 'aria-describedby': 'offsite-recovery-help' });
  area.value = text;
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // No clipboard permission (an old webview): select and copy.
      area.select();
      document.execCommand('copy');
    }
    toast(w.copied);
  };
  return h(
    'div',
    { class: 'recovery-block' },
    h('label', { for: 'offsite-recovery' }, w.recovery),
    h('p', { class: 'hint', id: 'offsite-recovery-help' }, w.recoveryHint),
    area,
    h(
      'div',
      { class: 'row' },
      h('button', { type: 'button', onclick: () => printText(text) }, w.print),
      h('button', { type: 'button', onclick: () => void copy() }, w.copy),
    ),
  );
}

/** printText prints text alone: the page is hidden while it prints
 * (style.css' print-only). */
function printText(text: string): void {
  const sheet = h('pre', { class: 'print-only' }, text);
  document.body.append(sheet);
  document.body.classList.add('printing');
  const done = () => {
    sheet.remove();
    document.body.classList.remove('printing');
  };
  window.addEventListener('afterprint', done, { once: true });
  window.print();
}
