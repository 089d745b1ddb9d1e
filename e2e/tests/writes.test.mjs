// Issue 9: every write waits on this computer when the family engine is
// away, shows at once as done-but-waiting, and arrives exactly once when
// the engine is back; the window shows it done without a reload.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openOnFamily, aimAtWords, harness, rpc, choose, tab, shot, until, useLocalEngine, axe, cardOf } from './lib.mjs';

let context;
let page;
let remote; // { url, token } of the family engine
let photo = ''; // a photo on the family engine, with a finished reading

/** ops reads the family engine's log after seq, over its HTTP API. */
async function ops(after) {
  const out = [];
  for (let at = after; ; ) {
    const r = await fetch(`${remote.url}/v1/ops?after=${at}&limit=1000`, { headers: { Authorization: `Bearer ${remote.token}` } });
    assert.equal(r.status, 200, `GET /v1/ops: ${r.status}`);
    const page = await r.json();
    out.push(...page.ops);
    if (page.next == null || page.ops.length === 0) return out;
    at = page.next;
  }
}

async function seq() {
  const r = await fetch(`${remote.url}/v1/health`, { headers: { Authorization: `Bearer ${remote.token}` } });
  return (await r.json()).seq;
}

before(async () => {
  ({ context, page, remote } = await openOnFamily());
  const { paths } = await harness('/test/generate', { n: 1 });
  await choose(page, paths);
  const { card, id } = await cardOf(page, paths[0]);
  await card.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
  photo = id;
  // Dad has looked at his moments before the engine goes away.
  await tab(page, 'Moments');
  await page.locator(`[data-testid=moment-tile][data-moment="${photo}"]`).waitFor();
});

after(async () => {
  await harness('/test/remote/stop').catch(() => {});
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** openPhoto opens the photo's moment dialog from Moments. */
async function openPhoto() {
  await tab(page, 'Moments');
  await page.locator(`[data-testid=moment-tile][data-moment="${photo}"]`).click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.waitFor();
  assert.equal(await dialog.getAttribute('data-moment-id'), photo, 'the dialog shows the moment clicked');
  return dialog;
}

/** keepWords selects words in the open moment's reading and keeps them. */
async function keepWords(dialog, words) {
  const text = dialog.locator('[data-testid=reading-text]').filter({ hasText: words }).first();
  const [from, to] = await aimAtWords(text, words);
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 6 });
  await page.mouse.up();
  await page.getByTestId('keep-bar').waitFor();
  await page.getByTestId('keep-phrase').click();
}

const NOTE = 'Buy stamps for the council letter';
const CAPTION = 'Letter from the council';

test('the family engine stopped: a note, a caption, a kept phrase, a careful reading and a recall wait here, then arrive once each and show done without a reload', async () => {
  const from = await seq();
  const violations = [];
  await harness('/test/remote/stop');
  await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });

  // A note, with the button pressed twice: one intent, one note.
  await tab(page, 'Add photos');
  await page.locator('#note').fill(NOTE);
  await page.getByRole('button', { name: 'Keep this note' }).dblclick();
  const noted = page.locator('#toasts .toast').filter({ hasText: 'Note kept' }).first();
  await noted.waitFor();
  assert.match(await noted.innerText(), /this computer/, 'the note says it waits on this computer');
  assert.equal(await page.locator('#toasts .toast.error').count(), 0, 'no error because the engine is away');

  // A caption, a kept phrase and a careful reading on the photo.
  const dialog = await openPhoto();
  await dialog.getByTestId('caption').fill(CAPTION);
  await dialog.getByTestId('caption-state').filter({ hasText: 'Saved on this computer' }).waitFor();
  await dialog.getByTestId('moment-waiting').waitFor();
  assert.match(await dialog.getByTestId('moment-waiting').innerText(), /this computer/, 'the moment says its change waits');
  const waitingSentence = await dialog.getByTestId('moment-waiting').innerText();
  await keepWords(dialog, 'red door');
  await page.locator('#toasts .toast').filter({ hasText: 'Kept “red door”' }).waitFor();
  await dialog.getByTestId('ask-careful').dblclick();
  await dialog.getByTestId('careful-asked').waitFor();
  assert.equal(await dialog.getByTestId('ask-careful').count(), 0, '“Ask for a careful reading” became “Careful reading asked”');
  assert.equal(await page.locator('#toasts .toast.error').count(), 0, 'no error because the engine is away');
  await shot(page, 'writes-waiting');
  violations.push(...(await axe(page, 'moment dialog, waiting')));
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();

  // The Outbox lists each write once, waiting.
  await tab(page, 'Outbox');
  const writes = page.getByTestId('write');
  for (const kind of ['note', 'caption', 'keep', 'careful']) {
    await until(async () => (await writes.and(page.locator(`[data-kind=${kind}]`)).count()) === 1, `one ${kind} waiting in the Outbox`, 20_000);
  }
  assert.equal(await writes.and(page.locator('[data-state=parked]')).count(), 0, 'nothing parked');
  assert.equal(await page.locator('#toasts .toast.error').count(), 0, 'no error anywhere because the engine is away');
  // Every waiting change says the one sentence the moment said.
  const said = new Set(await page.getByTestId('write-waiting').allInnerTexts());
  assert.deepEqual([...said], [waitingSentence], 'one sentence for every waiting change, the moment’s');
  // The status bar agrees with itself: the engine can't be reached, so the copy is not "Up to date".
  assert.doesNotMatch(await page.getByTestId('sync-status').innerText(), /Up to date/, 'not “Up to date” beside “can’t be reached”');
  await shot(page, 'writes-outbox');
  violations.push(...(await axe(page, 'Outbox, notes and changes waiting')));
  // On Phrases (which lists only what the engine has while it is away):
  await tab(page, 'Phrases');
  // A quick recall waits too, and is shown as on its way, not started twice.
  await page.getByTestId('start-recall').click();
  await page.getByTestId('recall-waiting').waitFor();
  await until(async () => (await page.getByTestId('start-recall').innerText()) === 'A quick recall is on its way', 'the recall shown as on its way', 10_000);
  assert.ok(await page.getByTestId('start-recall').isDisabled(), 'no second recall while one is on its way');
  violations.push(...(await axe(page, 'Phrases, waiting')));
  for (const v of violations) console.log(`# ${v.where} · ${v.id}: ${v.help}\n#   ${v.nodes.join('\n#   ')}`);
  assert.deepEqual(violations.map((v) => `${v.where}: ${v.id}`), [], 'no axe-core violations on the waiting screens');

  // The engine is back: each write arrives once, and the window follows.
  await harness('/test/remote/start', {});
  await tab(page, 'Outbox');
  await page.getByRole('button', { name: 'Send now' }).click();
  await until(async () => (await writes.count()) === 0, 'the writes are sent', 60_000);
  await page.getByTestId('outbox-summary').filter({ hasText: 'Everything is sent' }).waitFor();
  await page.locator('[data-testid=engine-state][data-state=connected]').waitFor();

  // Shown done, without a reload: the phrase, the note, the photo.
  await tab(page, 'Phrases');
  const phrase = page.getByTestId('phrase').filter({ hasText: 'red door' });
  await phrase.waitFor();
  await until(async () => (await phrase.getByTestId('phrase-waiting').count()) === 0, 'the phrase no longer waits', 20_000);
  await page.getByTestId('recall-status').filter({ hasText: 'Finished' }).waitFor({ timeout: 30_000 });
  assert.equal(await page.getByTestId('start-recall').innerText(), 'Start a quick recall', 'a new recall can be started once this one is done');
  await tab(page, 'Moments');
  const note = page.locator('[data-testid=moment-tile][data-kind=note]').filter({ hasText: NOTE });
  await until(async () => (await note.count()) === 1 && (await note.getAttribute('data-pending')) === 'false', 'the note is on the engine', 20_000);
  const again = await openPhoto();
  await until(async () => (await again.getByTestId('moment-waiting').count()) === 0, 'the photo no longer waits', 20_000);
  assert.equal(await again.getByTestId('caption').inputValue(), CAPTION);
  await again.getByTestId('careful-asked').waitFor();
  await again.locator('[data-testid=reading]').filter({ hasText: 'Careful reading' }).first().waitFor({ timeout: 30_000 });
  await shot(page, 'writes-done');
  await again.getByRole('button', { name: 'Close', exact: true }).click();

  // Over the engine's own HTTP API: each write exactly once. Sending now
  // again changes nothing.
  await rpc('Outbox/SendNow');
  await new Promise((r) => setTimeout(r, 1500));
  const log = await ops(from);
  const data = (o) => (typeof o.data === 'string' ? JSON.parse(o.data) : o.data);
  const count = (name, ok) => log.filter((o) => o.op === name && ok(data(o))).length;
  assert.equal(count('moment.create', (d) => d.kind === 'note' && d.caption === NOTE), 1, 'one note');
  assert.equal(count('moment.edit', (d) => d.id === photo && d.caption === CAPTION), 1, 'one caption edit');
  assert.equal(count('phrase.keep', (d) => d.text === 'red door'), 1, 'one kept phrase');
  const careful = log.filter((o) => o.op === 'turn.start' && data(o).moment_id === photo && data(o).mode === 'careful').map(data);
  assert.equal(new Set(careful.map((d) => d.job)).size, 1, 'one careful job');
  assert.equal(new Set(careful.map((d) => d.job_index)).size, careful.length, 'each seat asked once');
  assert.equal(count('turn.start', (d) => d.mode === 'recall'), 1, 'one quick recall');
});

test('a change the engine turns down waits in the Outbox with its reason, and is sent again or removed', async () => {
  // A caption for a moment the family engine does not have (deleted on
  // another computer, say): the engine refuses it for good.
  const gone = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
  // The engine answers at once: the window hears it is kept in the Outbox
  // (parked; words.ts says "It is kept in the Outbox…"), with the engine's
  // code.
  await assert.rejects(rpc('Moments/SetCaption', gone, 'A moment deleted elsewhere', ''), (e) => {
    assert.equal(e.ui?.parked, true, `kept in the Outbox: ${e.message}`);
    assert.match(e.ui.code, /^[a-z_]+$/, `a code, not a sentence: ${e.message}`);
    return true;
  });
  await tab(page, 'Outbox');
  const parked = page.getByTestId('write').and(page.locator('[data-state=parked]'));
  await parked.waitFor({ timeout: 30_000 });
  const said = await parked.getByTestId('write-problem').locator('.error-text').innerText();
  assert.match(said, /turned this down/, `it says what happened: ${said}`);
  assert.doesNotMatch(said, /https?:|127\.0\.0\.1|\b[45]\d\d\b|01ARZ/, `no addresses, codes or ids in the sentence: ${said}`);
  const details = parked.getByTestId('write-problem').locator('details');
  await details.locator('summary').click();
  assert.match(await details.locator('pre').innerText(), /no moment/, 'the engine’s own words are behind Details');
  assert.match(await parked.innerText(), /A moment deleted elsewhere/, 'it says which change');
  await page.locator('[data-testid=parked][data-count="1"]').waitFor();
  const found = await axe(page, 'Outbox, a change turned down');
  assert.deepEqual(found.map((v) => `${v.where}: ${v.id}`), [], 'no axe-core violations');
  await shot(page, 'writes-parked');

  // Send again: the engine refuses it again, and it is back in the list.
  await parked.getByTestId('retry-write').click();
  await page.locator('#toasts .toast').filter({ hasText: 'Sending it again' }).waitFor();
  await parked.waitFor({ timeout: 30_000 });
  // Remove, after a yes: it is never sent, and the list is empty.
  await parked.getByTestId('discard-write').click();
  const confirm = page.locator('dialog.confirm');
  await confirm.getByRole('button', { name: 'Remove' }).click();
  await until(async () => (await page.getByTestId('write').count()) === 0, 'the change is removed', 20_000);
  await page.locator('[data-testid=parked][data-count="0"]').waitFor({ state: 'attached' });
});

test('the Outbox drawn again keeps the Details Dad opened and the button he is on', async () => {
  const gone = ['01ARZ3NDEKTSV4RRFFQ69G5FAW', '01ARZ3NDEKTSV4RRFFQ69G5FAX'];
  await assert.rejects(rpc('Moments/SetCaption', gone[0], 'The first change turned down', ''));
  await tab(page, 'Outbox');
  const first = page.locator(`[data-testid=write][data-state=parked]`).filter({ hasText: 'The first change turned down' });
  await first.waitFor({ timeout: 30_000 });
  await first.getByTestId('write-problem').locator('summary').click();
  await first.getByTestId('retry-write').focus();
  // Another change turned down: the list is drawn again around them.
  await assert.rejects(rpc('Moments/SetCaption', gone[1], 'The second change turned down', ''));
  await until(async () => (await page.locator('[data-testid=write][data-state=parked]').count()) === 2, 'the second change in the list');
  assert.equal(await first.getByTestId('write-problem').locator('details').evaluate((d) => d.open), true, 'the Details he opened stay open');
  assert.equal(await first.getByTestId('retry-write').evaluate((b) => b === document.activeElement), true, 'the keyboard stays on Send again');
  for (let i = 0; i < 2; i++) {
    await page.locator('[data-testid=write][data-state=parked]').first().getByTestId('discard-write').click();
    await page.locator('dialog.confirm').getByRole('button', { name: 'Remove' }).click();
    await until(async () => (await page.getByTestId('write').count()) === 1 - i, 'a change removed', 20_000);
  }
});

test('issue 21: a note written while the family engine is away shows as kept in under 100 ms and is sent behind, once', async () => {
  const from = await seq();
  const text = 'Ring the surgery about Tuesday';
  await harness('/test/remote/stop');
  await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
  await tab(page, 'Add photos');
  await page.locator('#note').fill(text);
  // Measured in the page: from the click to the box emptied and "Note kept" shown.
  const ms = await page.evaluate(
    () =>
      new Promise((resolve) => {
        const box = document.querySelector('#note');
        const t0 = performance.now();
        document.querySelector('form.note button[type=submit]').click();
        const look = () => {
          const kept = [...document.querySelectorAll('#toasts .toast')].some((t) => t.textContent.includes('Note kept'));
          if (box.value === '' && kept) resolve(performance.now() - t0);
          else if (performance.now() - t0 > 5000) resolve(Infinity);
          else requestAnimationFrame(look);
        };
        look();
      }),
  );
  console.log(`# an offline note shown as kept after ${ms.toFixed(0)} ms`);
  assert.ok(ms < 100, `the note shows as kept in under 100 ms, not after the engine was waited for (${ms} ms)`);
  const kept = page.locator('#toasts .toast').filter({ hasText: 'Note kept' }).first();
  assert.match(await kept.innerText(), /safe on this computer/, 'it says the note is safe here');
  assert.equal(await page.locator('#toasts .toast.error').count(), 0, 'no error because the engine is away');
  assert.equal(await page.getByRole('button', { name: 'Keep this note' }).isDisabled(), false, 'the button is ready for the next note');
  await shot(page, 'note-kept-offline-light');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'note-kept-offline-dark');
  await page.emulateMedia({ colorScheme: 'light' });
  // In Moments at once, waiting on this computer.
  await tab(page, 'Moments');
  const tile = page.locator('[data-testid=moment-tile][data-kind=note]').filter({ hasText: text });
  await tile.waitFor();
  assert.equal(await tile.getAttribute('data-pending'), 'true', 'the note waits on this computer');

  // The engine is back: the note arrives once, and the tile says so.
  await harness('/test/remote/start', {});
  await rpc('Outbox/SendNow');
  await until(async () => (await tile.getAttribute('data-pending')) === 'false', 'the note is on the engine', 60_000);
  const log = await ops(from);
  const data = (o) => (typeof o.data === 'string' ? JSON.parse(o.data) : o.data);
  assert.equal(log.filter((o) => o.op === 'moment.create' && data(o).caption === text).length, 1, 'the note arrived once');
});
