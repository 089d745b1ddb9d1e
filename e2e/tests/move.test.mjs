// Issue 8, item 7: Dad started alone, then joins the family engine. With
// moments on this computer's engine, Settings switched to the family
// engine says how many of them it lacks and offers "Bring my N moments
// along"; pressing it shows the progress and ends with the finished
// message, the family engine then holds each of them with its reading as
// given here, and bringing them again sends nothing new. And the way back:
// Settings switched to this computer again says how many of the family
// engine's moments this computer lacks and brings them here the same way,
// leaving the family engine as it was.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openBesideFamily, appMoments, familyMoments, harness, rpc, choose, tab, shot, until, useLocalEngine, axe } from './lib.mjs';

let context;
let page;
let remote; // { url, token } of the family engine

before(async () => {
  ({ context, page, remote } = await openBesideFamily());
});

// The phrases the move brings are the family engine's now; a phrase's id
// comes from its words, so one kept here by an earlier test would already
// be kept there for the tests after this one. They are removed again.
let phrasesBefore = null;

after(async () => {
  if (phrasesBefore) {
    for (const p of (await get('/v1/phrases')).phrases) {
      if (phrasesBefore.has(p.id)) continue;
      await fetch(`${remote.url}/v1/phrases/${encodeURIComponent(p.id)}`, { method: 'DELETE', headers: { Authorization: `Bearer ${remote.token}` } });
    }
  }
  await useLocalEngine().catch(() => {});
  await context?.close();
});

/** send calls the family engine's HTTP API with a JSON body. */
async function send(method, path, body) {
  const r = await fetch(`${remote.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${remote.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  assert.ok(r.status === 200 || r.status === 201, `${method} ${path}: ${r.status} ${await r.clone().text()}`);
  return r.json();
}

/** ulid makes a fresh ULID (Crockford base 32: 10 of time, 16 random). */
function ulid() {
  const abc = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  let t = Date.now();
  let time = '';
  for (let i = 0; i < 10; i++, t = Math.floor(t / 32)) time = abc[t % 32] + time;
  let rnd = '';
  for (let i = 0; i < 16; i++) rnd += abc[Math.floor(Math.random() * 32)];
  return time + rnd;
}

/** get calls the family engine's HTTP API. */
async function get(path) {
  const r = await fetch(`${remote.url}${path}`, { headers: { Authorization: `Bearer ${remote.token}` } });
  assert.equal(r.status, 200, `GET ${path}: ${r.status}`);
  return r.json();
}

/** familyByID is every live moment on the family engine, by id. */
async function familyByID() {
  return new Map((await familyMoments(remote)).map((m) => [m.id, m]));
}

test('moments kept on this computer are brought to the family engine from Settings, once', async () => {
  // Three photos on this computer's engine, read by its Pippa.
  const earlier = (await appMoments()).length;
  const { paths } = await harness('/test/generate', { n: 3 });
  await choose(page, paths);
  const mine = await until(async () => {
    const ms = await appMoments();
    if (ms.length < earlier + 3 || ms.some((m) => m.pending) || (await rpc('Outbox/Entries')).length > 0) return false;
    const read = ms.filter((m) => m.kind === 'photo').every((m) => m.readings.some((r) => r.status === 'finished'));
    return read && ms;
  }, 'the three reach this computer’s engine and Pippa reads them');
  const had = await familyByID();
  phrasesBefore = new Set((await get('/v1/phrases')).phrases.map((p) => p.id));
  const lacking = mine.filter((m) => !had.has(m.id));
  assert.ok(lacking.length >= 3, `the family engine lacks at least the three new ones (${lacking.length})`);

  // Switch to the family engine in Settings, as Dad does.
  await tab(page, 'Settings');
  await page.getByLabel('Family engine').check();
  await page.getByLabel('Connection text').fill(`${remote.url}#${remote.token}`);
  await page.getByTestId('connect').click();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();

  // Issue 21, item 2: Moments itself offers to bring them along, in the
  // words of Settings' own count (checked against it below).
  await tab(page, 'Moments');
  const here = page.getByTestId('moments-move');
  const hereSaid = await here.getByTestId('move-lacking').filter({ hasText: /^The family engine does not have \d+ moments that are kept on this computer\.$/ }).innerText({ timeout: 30_000 });
  const hereButton = await here.getByTestId('move-start').innerText();
  assert.ok(await here.getByTestId('move-start').isVisible(), 'the offer is in view in Moments');
  await shot(page, 'move-offered-moments-light');
  const violations = await axe(page, 'Moments, moments to bring along');
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, 'move-offered-moments-dark');
  violations.push(...(await axe(page, 'Moments, moments to bring along, dark')));
  await page.emulateMedia({ colorScheme: 'light' });
  // Settings draws itself again from a fresh copy when shown: wait for it.
  const fresh = page.waitForResponse((r) => r.url().includes('/rpc/Settings/Get'));
  await tab(page, 'Settings');
  await fresh;

  // Settings says how many it lacks, and offers to bring them.
  // (Moments of the earlier tests are among them.)
  const block = page.getByTestId('move');
  const said = await block.getByTestId('move-lacking').filter({ hasText: /^The family engine does not have \d+ moments that are kept on this computer\.$/ }).innerText();
  const n = Number(said.match(/\d+/)[0]);
  console.log(`# Settings: the family engine lacks ${n} moments; the window lists ${lacking.length} it does not have`);
  assert.equal(n, lacking.length, 'Settings counts the moments the window lists and the family engine lacks');
  const button = block.getByTestId('move-start');
  assert.equal(await button.innerText(), `Bring my ${n} moments along`);
  await shot(page, 'move-offered');
  violations.push(...(await axe(page, 'Settings, moments to bring along')));
  assert.equal(hereSaid, said, 'Moments says what Settings says');
  assert.equal(hereButton, `Bring my ${n} moments along`, 'Moments offers to bring them along');

  // Pressing it shows the progress (however short: a watcher on the block
  // notes every bar drawn), then the finished message.
  await block.evaluate((el) => {
    window.moveSeen = [];
    new MutationObserver(() => {
      const bar = el.querySelector('[data-testid=move-progress]');
      if (bar) window.moveSeen.push({ value: Number(bar.getAttribute('value')), max: Number(bar.getAttribute('max')), text: el.innerText });
    }).observe(el, { childList: true, subtree: true });
  });
  await button.click();
  const done = block.getByTestId('move-message').filter({ hasText: 'All your moments are on the family engine now. They are still on this computer too.' });
  await done.waitFor({ timeout: 60_000 });
  const seen = await page.evaluate(() => window.moveSeen);
  assert.ok(seen.length > 0, 'a progress bar showed while the moments were brought along');
  assert.match(seen[0].text, /Bringing your moments along… \d+%/, 'the bar says what it does, in words');
  assert.equal(await block.getByTestId('move-progress').count(), 0, 'the bar is gone once finished');
  assert.equal(await block.getByTestId('move-start').count(), 0, 'nothing left to bring');
  await shot(page, 'move-finished');
  // Moments heard it too: no offer left there.
  assert.equal(await page.getByTestId('moments-move').getByTestId('move-start').count(), 0, 'Moments offers nothing once they are brought along');
  violations.push(...(await axe(page, 'Settings, moments brought along')));
  assert.deepEqual(violations.map((v) => `${v.where}: ${v.id}`), [], 'no axe-core violations');

  // The family engine holds each of them, with its reading as given here.
  const now = await familyByID();
  const listed = new Set(lacking.map((m) => m.id));
  const others = [...now.values()].filter((m) => !had.has(m.id) && !listed.has(m.id));
  if (others.length) console.log(`# brought along too, not in the window's list when counted: ${others.map((m) => `${m.kind} ${m.id}`).join(', ')}`);
  for (const m of lacking) {
    const f = now.get(m.id);
    assert.ok(f, `the family engine holds ${m.id}`);
    const given = m.readings.filter((r) => r.status === 'finished').map((r) => r.text);
    const there = (f.turns ?? []).filter((t) => t.status === 'finished').map((t) => t.text);
    assert.deepEqual(there, given, `the readings of ${m.id} came along as they are`);
    if (m.kind === 'photo') assert.ok(f.copy && f.original, `${m.id} has its photos on the family engine`);
  }

  // The window, reading this computer's copy of the family engine, shows
  // them at once (the move ends with a sync; the next by itself is 15 s off).
  await until(async () => {
    const ids = new Set((await appMoments()).filter((m) => !m.pending).map((m) => m.id));
    return lacking.every((m) => ids.has(m.id));
  }, 'the moments brought along show from the family engine’s copy', 10_000);

  // Settings opened again: nothing lacking, no button. Bringing them again
  // (the call the button makes) sends nothing: the family engine's log
  // does not grow.
  await tab(page, 'Moments');
  await tab(page, 'Settings');
  await until(async () => (await rpc('Settings/MoveCheck')).lacking === 0, 'the check finds nothing lacking');
  await page.getByTestId('move').waitFor({ state: 'attached' });
  assert.equal(await page.getByTestId('move-start').count(), 0, 'no button when the family engine has them all');
  const seq = (await get('/v1/health')).seq;
  const again = await rpc('Settings/BringAlong');
  assert.ok(again.running, 'the second move starts');
  await until(async () => {
    const v = await rpc('Settings/MoveCheck');
    return !v.running;
  }, 'the second move ends');
  assert.equal((await get('/v1/health')).seq, seq, 'the second move sent nothing new');
  assert.equal((await familyByID()).size, now.size, 'and duplicated nothing');
});

test('moments kept on the family engine are brought to this computer from Settings, once, the way back', async () => {
  // Two moments another member of the family added to the family engine,
  // one with a reading Pippa gave there.
  const added = [];
  for (const caption of ['The way back: the shed key is under the pot', 'The way back: the boiler was serviced']) {
    const id = ulid();
    await send('POST', '/v1/moments', { id, client_request_id: `e2e-back:${id}`, kind: 'note', caption });
    added.push(id);
  }
  const reading = 'A note about where the shed key is.';
  await send('POST', '/v1/import/turns', { id: ulid(), moment_id: added[0], mode: 'practical', status: 'finished', text: reading });
  const family = await familyByID();
  const familySeq = (await get('/v1/health')).seq;

  // Switch Settings back to this computer, as Dad does.
  await tab(page, 'Settings');
  await page.locator('#engine-local').check();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'this computer' }).waitFor();
  const here = new Set((await appMoments()).map((m) => m.id));
  const lacking = [...family.keys()].filter((id) => !here.has(id));
  assert.ok(added.every((id) => lacking.includes(id)), 'this computer lacks the two new ones');

  const block = page.getByTestId('move');
  const said = await block.getByTestId('move-lacking').filter({ hasText: /^The family engine has \d+ moments? this computer doesn't\.$/ }).innerText();
  const n = Number(said.match(/\d+/)[0]);
  console.log(`# Settings: this computer lacks ${n} of the family engine's moments; ${lacking.length} by the lists`);
  assert.equal(n, lacking.length, 'Settings counts the family engine\'s moments this computer lacks');
  const button = block.getByTestId('move-start');
  assert.equal(await button.innerText(), n === 1 ? 'Bring it here' : 'Bring them here');
  await shot(page, 'move-back-offered');
  const violations = await axe(page, 'Settings, moments to bring here');

  await block.evaluate((el) => {
    window.moveSeen = [];
    new MutationObserver(() => {
      const bar = el.querySelector('[data-testid=move-progress]');
      if (bar) window.moveSeen.push({ text: el.innerText });
    }).observe(el, { childList: true, subtree: true });
  });
  await button.click();
  const said2 = block.getByTestId('move-message').filter({ hasNotText: /^Bringing/ });
  await said2.waitFor({ timeout: 60_000 });
  assert.equal(await said2.innerText(), 'All your moments are on this computer now. They are still on the family engine too.');
  const seen = await page.evaluate(() => window.moveSeen);
  assert.ok(seen.length > 0, 'a progress bar showed while the moments were brought here');
  assert.match(seen[0].text, /Bringing the family engine’s moments here… \d+%|Bringing the family engine's moments here… \d+%/, 'the bar says what it does, in words');
  assert.equal(await block.getByTestId('move-start').count(), 0, 'nothing left to bring');
  await shot(page, 'move-back-finished');
  violations.push(...(await axe(page, 'Settings, moments brought here')));
  assert.deepEqual(violations.map((v) => `${v.where}: ${v.id}`), [], 'no axe-core violations');

  // This computer holds each of them, the reading as given there; the
  // family engine is as it was.
  const now = await appMoments();
  const byID = new Map(now.map((m) => [m.id, m]));
  for (const id of lacking) assert.ok(byID.has(id), `this computer holds ${id}`);
  assert.deepEqual(byID.get(added[0]).readings.filter((r) => r.status === 'finished').map((r) => r.text), [reading], 'the reading came along as it is');
  assert.equal((await get('/v1/health')).seq, familySeq, 'nothing was written to the family engine');
  assert.equal((await familyByID()).size, family.size, 'nor taken from it');

  // Bringing them again sends nothing: this computer's log does not grow.
  const { local_url: localURL } = await rpc('Settings/Get');
  const localSeq = async () => (await (await fetch(`${localURL}/v1/health`)).json()).seq;
  const seq = await localSeq();
  const again = await rpc('Settings/BringAlong');
  assert.ok(again.running, 'the second move starts');
  await until(async () => !(await rpc('Settings/MoveCheck')).running, 'the second move ends');
  assert.equal(await localSeq(), seq, 'the second move wrote nothing here');
  assert.equal((await appMoments()).length, now.length, 'and duplicated nothing');
});
