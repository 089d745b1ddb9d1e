// End-to-end tests of the Spark desktop UI in Chromium against the real app
// layer (harness: real engine, real outbox, fake Pippa). They run in order
// in one window, as a person would use the app.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aimAtWords, launch, harness, choose, tab, shot, until, url, rpc, cardOf } from './lib.mjs';

const photos = join(import.meta.dirname, '..', '..', '..', 'shared', 'photos');
let context;
let page;

before(async () => {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  ({ context, page } = await launch());
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'this computer' }).waitFor();
});

after(async () => {
  await context?.close();
});

async function cardsSent(n, timeout) {
  await until(async () => (await page.locator('[data-testid=card][data-state=sent]').count()) >= n, `${n} cards sent`, timeout);
}

async function openNewestMoment() {
  await tab(page, 'Moments');
  const tile = page.locator('[data-testid=moment-tile][data-pending=false]').first();
  await tile.click();
  await page.getByTestId('moment-dialog').waitFor();
}

test('three generated photos and a broken file: cards show at once, the broken one says why, then the moments and Pippa’s readings', async () => {
  const { paths } = await harness('/test/generate', { n: 3 });
  const broken = join(mkdtempSync(join(tmpdir(), 'spark-e2e-')), 'broken.jpg');
  writeFileSync(broken, 'this is not a photo at all');
  await choose(page, [...paths.slice(0, 2), broken, paths[2]]);
  await until(async () => (await page.getByTestId('card').count()) >= 4, 'four cards');
  // The system's file dialog said the window's words (words.ts), filters
  // and all.
  const asked = await (await fetch(`${url()}/test/dialogs`)).json();
  assert.deepEqual(asked.at(-1), { title: 'Choose photos to add to Spark', photos: 'Photos (JPEG, PNG, WebP, HEIC)', all: 'All files' });
  const failed = page.locator('[data-testid=card][data-state=failed]');
  await failed.waitFor();
  const why = await failed.innerText();
  assert.match(why, /broken\.jpg/);
  assert.ok(why.replace('broken.jpg', '').trim().length > 10, `the card says why: ${why}`);
  const imgs = page.locator('[data-testid=card] img');
  await until(async () => (await imgs.evaluateAll((els) => els.filter((e) => e.complete && e.naturalWidth > 0).length)) >= 3, 'three small copies drawn');
  await cardsSent(3);
  await shot(page, 'capture');

  await tab(page, 'Moments');
  await until(async () => (await page.locator('[data-testid=moment-tile][data-pending=false]').count()) >= 3, 'three moments from the engine');
  await shot(page, 'moments');
  await openNewestMoment();
  const reading = page.locator('[data-testid=reading][data-status=finished]').first();
  await reading.waitFor();
  assert.match(await reading.innerText(), /red door/);
  await shot(page, 'moment');
  await page.getByRole('button', { name: 'Close', exact: true }).click();
});

test('real photos, one HEIC: small copies drawn upright and read by Pippa', async (t) => {
  if (!existsSync(photos)) {
    t.skip(`no test photos at ${photos}`);
    return;
  }
  const names = ['iphone13promax_4032x3024_orient6.heic', 'canon_sx60_2048x1536_orient6.jpg', 'olympus_ep3_4032x3024.jpg'];
  const before = await page.locator('[data-testid=card][data-state=sent]').count();
  await choose(page, names.map((n) => join(photos, n)));
  // Three 12 MP photos, one HEIC (decoded in WebAssembly): slow on a busy
  // two-core machine.
  await cardsSent(before + 3, 120_000);
  // Sent is not drawn: on a busy machine the last picture may still be
  // decoding.
  const drawn = () => page.locator('[data-testid=card] img').evaluateAll((els) => els.slice(0, 3).map((e) => [e.complete ? e.naturalWidth : 0, e.naturalHeight]));
  await until(async () => (await drawn()).every(([w]) => w > 0), 'the three pictures drawn', 30_000);
  const sizes = await drawn();
  // Newest first: the olympus (landscape), the canon and the HEIC, both
  // orientation 6, so portrait once upright.
  assert.ok(sizes.every(([w, h]) => w > 0 && h > 0), `drawn: ${JSON.stringify(sizes)}`);
  const portraits = sizes.filter(([w, h]) => h > w).length;
  assert.equal(portraits, 2, `the two rotated photos come out portrait: ${JSON.stringify(sizes)}`);
  // A card shows a tile of 640 pixels, not the 1,600-pixel small copy
  // (WebKit keeps each picture on screen decoded); the moment shows the
  // small copy itself.
  assert.ok(sizes.every(([w, h]) => Math.max(w, h) === 640), `cards are 640-pixel tiles: ${JSON.stringify(sizes)}`);
  await shot(page, 'capture-real');
  await openNewestMoment();
  const image = page.getByTestId('moment-image');
  await until(async () => image.evaluate((e) => e.complete && e.naturalWidth > 0), 'the moment’s picture drawn');
  assert.equal(await image.evaluate((e) => Math.max(e.naturalWidth, e.naturalHeight)), 1600, 'the moment shows the 1,600-pixel small copy');
  await page.locator('[data-testid=reading][data-status=finished]').first().waitFor();
  await page.getByRole('button', { name: 'Close', exact: true }).click();
});

test('a drop on the window and a pasted picture are captured too', async () => {
  await tab(page, 'Add photos');
  const sent = await page.locator('[data-testid=card][data-state=sent]').count();
  // Wails hands the UI the dropped files' paths through runtime.OnFileDrop;
  // the harness's runtime keeps that callback, so a drop is simulated here.
  const { paths } = await harness('/test/generate', { n: 1 });
  await page.evaluate((ps) => window.__sparkFileDrop(10, 10, ps), paths);
  await until(async () => (await page.locator('[data-testid=card][data-state=sent]').count()) >= sent + 1, 'the dropped photo sent');
  // A picture on the clipboard, pasted with Ctrl+V.
  await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 320;
    c.height = 240;
    const g = c.getContext('2d');
    g.fillStyle = '#3a7bd5';
    g.fillRect(0, 0, 320, 240);
    g.fillStyle = '#ffd166';
    g.beginPath();
    g.arc(220, 80, 40, 0, Math.PI * 2);
    g.fill();
    const blob = await new Promise((r) => c.toBlob(r, 'image/png'));
    const dt = new DataTransfer();
    dt.items.add(new File([blob], 'clip.png', { type: 'image/png' }));
    document.dispatchEvent(new ClipboardEvent('paste', { clipboardData: dt, bubbles: true }));
  });
  await until(async () => (await page.locator('[data-testid=card][data-state=sent]').count()) >= sent + 2, 'the pasted picture sent');
  const { card } = await cardOf(page, 'Pasted picture.png');
  assert.match(await card.innerText(), /Pasted picture\.png/);
});

test('keep a phrase selected in a reading with the mouse: the selection snaps to whole words and the dialog does not move', async () => {
  await openNewestMoment();
  const dialog = page.getByTestId('moment-dialog');
  const text = dialog.locator('[data-testid=reading-text]').first();
  await text.waitFor();
  // Aim as a hand does: from inside "red" to inside "door".
  const [from, to] = await aimAtWords(text, 'red door');
  const before = await dialog.boundingBox();
  await page.mouse.move(from.x, from.y);
  await page.mouse.down();
  await page.mouse.move((from.x + to.x) / 2, (from.y + to.y) / 2, { steps: 4 });
  assert.ok(await page.getByTestId('keep-bar').isHidden(), 'no bar while the button is held');
  const during = await dialog.boundingBox();
  await page.mouse.move(to.x, to.y, { steps: 4 });
  await page.mouse.up();
  const bar = page.getByTestId('keep-bar');
  await bar.waitFor();
  const after = await dialog.boundingBox();
  for (const b of [during, after]) assert.deepEqual(b, before, 'the dialog does not move while selecting');
  assert.equal(await page.evaluate(() => document.getSelection().toString()), 'red door', 'the selection snaps to whole words');
  assert.match(await bar.innerText(), /“red door”/);
  await shot(page, 'keep-phrase');
  await page.getByTestId('keep-phrase').click();
  await page.getByText('Kept “red door”').waitFor();
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await tab(page, 'Phrases');
  await page.getByTestId('phrase').filter({ hasText: 'red door' }).waitFor();
});

test('a moment: caption edited, a careful reading asked for, then deleted after a confirm', async () => {
  await tab(page, 'Moments');
  const id = await page.locator('[data-testid=moment-tile][data-pending=false]').first().getAttribute('data-moment');
  await page.locator(`[data-moment="${id}"]`).click();
  const dialog = page.getByTestId('moment-dialog');
  await dialog.getByTestId('caption').fill('Sunday at the allotment');
  await dialog.getByTestId('caption-state').filter({ hasText: 'Saved' }).waitFor();

  await dialog.getByRole('button', { name: 'Ask for a careful reading' }).click();
  await dialog.locator('[data-testid=reading][data-status=finished]').filter({ hasText: 'Careful reading' }).waitFor();
  await shot(page, 'moment-careful');
  await dialog.getByRole('button', { name: 'Close', exact: true }).click();
  await page.locator(`[data-moment="${id}"]`).filter({ hasText: 'Sunday at the allotment' }).waitFor();

  await page.locator(`[data-moment="${id}"]`).click();
  await dialog.getByRole('button', { name: 'Delete…' }).click();
  const confirm = page.locator('dialog.confirm');
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  assert.ok(await dialog.isVisible(), 'Cancel keeps the moment');
  await dialog.getByRole('button', { name: 'Delete…' }).click();
  await confirm.getByRole('button', { name: 'Delete' }).click();
  await page.getByText('Moment deleted.').waitFor();
  await until(async () => (await page.locator(`[data-moment="${id}"]`).count()) === 0, 'the tile to go');
});

test('a quick recall shows its reading', async () => {
  await tab(page, 'Phrases');
  await page.getByTestId('start-recall').click();
  await page.getByTestId('recall-status').filter({ hasText: 'Finished' }).waitFor();
  assert.match(await page.getByTestId('recall-text').innerText(), /Remembering together/);
  await shot(page, 'phrases');
});

test('a plain http:// address off this computer: Spark asks before the token goes out, and Cancel sends nothing', async () => {
  await tab(page, 'Settings');
  await page.getByLabel('Family engine').check();
  // .invalid never resolves: had Spark sent the token, nothing would answer.
  await page.getByLabel('Connection text').fill('http://family-engine.invalid:8787#spk_not_sent');
  await page.getByTestId('connect').click();
  const confirm = page.locator('dialog.confirm');
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /not protected/);
  assert.match(await confirm.innerText(), /https:\/\//);
  await confirm.getByRole('button', { name: 'Cancel' }).click();
  await confirm.waitFor({ state: 'detached' });
  assert.equal(await page.getByTestId('test-result').innerText(), '', 'nothing was tried');
  assert.equal((await rpc('Settings/Get')).engine, 'local');
});

test('an unreachable family engine: calm banner, captures wait, then send on their own when it is up', async () => {
  const remote = await harness('/test/remote/prepare');
  await tab(page, 'Settings');
  await page.getByLabel('Family engine').check();
  // One step: the connection text. The engine does not answer yet, so
  // Spark asks before switching to it.
  await page.getByLabel('Connection text').fill(`${remote.url}#${remote.token}`);
  await page.getByTestId('connect').click();
  await page.getByTestId('test-result').filter({ hasText: 'The family engine does not answer at' }).waitFor();
  const confirm = page.locator('dialog.confirm');
  await confirm.waitFor();
  assert.match(await confirm.innerText(), /does not answer/);
  await shot(page, 'settings');
  await confirm.getByRole('button', { name: 'Connect anyway' }).click();
  await page.locator('[data-testid=engine-state][data-state=offline]').filter({ hasText: 'family engine' }).waitFor();
  const banner = page.locator('.banner');
  await banner.waitFor();

  const { paths } = await harness('/test/generate', { n: 2 });
  await choose(page, paths);
  await until(async () => /2 photos are waiting safely on this computer/.test(await banner.innerText()), 'the banner counts two waiting captures');
  await tab(page, 'Outbox');
  await until(async () => (await page.locator('[data-testid=entry][data-state=pending]').count()) === 2, 'two waiting entries');
  await page.getByText('can’t be reached right now').first().waitFor();
  await shot(page, 'offline');

  await harness('/test/remote/start', {});
  await page.getByRole('button', { name: 'Send now' }).click();
  await until(async () => (await page.getByTestId('entry').count()) === 0, 'the outbox empties');
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  await until(async () => !(await banner.isVisible()), 'the banner goes away');
  await tab(page, 'Moments');
  await until(async () => (await page.locator('[data-testid=moment-tile][data-pending=false]').count()) >= 2, 'the family engine has them');
});

test('a parked entry shows the engine’s message, is retried and sent', async () => {
  await harness('/test/remote/start', { maxMediaSize: 1_000_000 });
  const { paths } = await harness('/test/generate', { n: 1, big: true });
  await choose(page, paths);
  await tab(page, 'Outbox');
  const parked = page.locator('[data-testid=entry][data-state=parked]');
  await parked.waitFor({ timeout: 60_000 });
  const msg = await parked.getByTestId('parked-message').innerText();
  assert.match(msg, /too large/, `it says what happened: ${msg}`);
  assert.doesNotMatch(msg.split('Details')[0], /bytes|engine's limit|1000000/, `no raw limit in the sentence: ${msg}`);
  assert.match(await parked.getByTestId('save-original').getAttribute('class'), /primary/, 'saving the original is the main action (sending again cannot work)');
  await parked.getByTestId('parked-message').locator('summary').click();
  assert.match(await parked.getByTestId('parked-message').locator('pre').innerText(), /1000000|limit/, 'the engine’s own words are behind Details');
  await page.locator('[data-testid=parked][data-count="1"]').filter({ hasText: '1 photo needs you' }).waitFor();
  await shot(page, 'parked');

  await harness('/test/remote/start', {});
  await parked.getByTestId('retry').click();
  await until(async () => (await page.getByTestId('entry').count()) === 0, 'the retried entry is sent');
  await page.locator('[data-testid=parked][data-count="0"]').waitFor({ state: 'attached' });
});

test('keyboard, 200% zoom and dark mode: everything reachable, nothing cut off', async () => {
  // 200% zoom of a 1180x800 window: half the CSS pixels, each drawn twice.
  const zoomed = await launch({ width: 590, height: 400, colorScheme: 'dark' });
  const p = zoomed.page;
  try {
    await p.getByTestId('engine-state').waitFor();
    // With moments the app opens on Moments; start over on Add photos, and
    // from the top of the page Tab reaches the tabs and the main actions,
    // each with a visible focus ring.
    await tab(p, 'Add photos');
    await p.evaluate(() => (document.activeElement instanceof HTMLElement ? document.activeElement.blur() : undefined));
    const seen = [];
    for (let i = 0; i < 12; i++) {
      await p.keyboard.press('Tab');
      seen.push(
        await p.evaluate(() => {
          const el = document.activeElement;
          const style = el ? getComputedStyle(el) : null;
          return { text: el?.textContent?.trim() ?? '', outline: style ? style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2 : false };
        }),
      );
    }
    // At 200% the tabs are folded behind the menu button (issue 21).
    for (const name of ['Menu', 'Choose photos…', 'Import a folder…']) {
      const hit = seen.find((s) => s.text.replace(/^☰\s*/, '').startsWith(name));
      assert.ok(hit, `Tab reaches “${name}” (saw ${seen.map((s) => s.text).join(' | ')})`);
      assert.ok(hit.outline, `“${name}” shows a focus ring`);
    }
    for (const name of ['Add photos', 'Moments', 'Outbox', 'Settings']) {
      await tab(p, name);
      const overflow = await p.evaluate(() => {
        const m = document.querySelector('main .screen:not([hidden])');
        return Math.max(document.documentElement.scrollWidth - document.documentElement.clientWidth, m ? m.scrollWidth - m.clientWidth : 0);
      });
      assert.ok(overflow <= 1, `${name} fits the width at 200% zoom (overflow ${overflow}px)`);
    }
    await tab(p, 'Moments');
    await p.getByTestId('moment-tile').first().waitFor();
    await p.keyboard.press('Tab');
    await shot(p, 'zoom200-dark');
  } finally {
    await zoomed.context.close();
  }
});
