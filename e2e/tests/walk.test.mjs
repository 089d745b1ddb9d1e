// Issue 36, a walk of the window as Dad: toasts never cover a control,
// stack at most two and go when their news is old (4); offline at 200%
// the banner and the status bar take one line each and Moments shows a
// whole row of tiles (5); a portrait photo leaves no gap before Caption
// and the dialog holds still when the viewer closes on another photo (8);
// a duplicate card shows the photo and opens the moment it duplicates (9).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, harness, rpc, tab, shot, until, url, useLocalEngine, axe, familyMoments, cardOf } from './lib.mjs';

before(async () => {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  await useLocalEngine();
});

after(async () => {
  await harness('/test/remote/stop').catch(() => {});
  await useLocalEngine().catch(() => {});
});

const zoom200 = { width: 640, height: 400, deviceScaleFactor: 2 };

/** open launches a window and waits until it is connected. */
async function open(opts) {
  const w = await launch(opts);
  await w.page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  return w;
}

/** shots takes a picture of the page in light and in dark, with axe on each. */
async function shots(page, name) {
  const found = [];
  await shot(page, `${name}-light`);
  found.push(...(await axe(page, `${name}, light`)));
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `${name}-dark`);
  found.push(...(await axe(page, `${name}, dark`)));
  await page.emulateMedia({ colorScheme: 'light' });
  return found;
}

/** toastsOver tells, of the toasts shown, how many there are, which are
 * out of the window, and which controls they cover (a control of the
 * topmost modal dialog when one is open, else of the page). */
async function toastsOver(page) {
  return page.evaluate(() => {
    const toasts = [...document.querySelectorAll('#toasts .toast')];
    const modal = [...document.querySelectorAll('dialog[open]')].filter((d) => d.matches(':modal')).at(-1);
    const scope = modal ?? document;
    const controls = [...scope.querySelectorAll('button, a[href], input, textarea, select, summary, [tabindex="0"]')].filter(
      (c) => !c.closest('#toasts') && c.checkVisibility() && c.getBoundingClientRect().width > 0,
    );
    const name = (c) => (c.getAttribute('aria-label') || c.textContent || c.getAttribute('data-testid') || c.tagName).trim().slice(0, 40);
    const covered = [];
    const outside = [];
    // What shows of a control: its box cut by every box around it that
    // clips (a scroller shows only what is scrolled to).
    const seen = (c) => {
      let r = c.getBoundingClientRect();
      let box = { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
      for (let a = c.parentElement; a; a = a.parentElement) {
        if (getComputedStyle(a).overflow === 'visible') continue;
        r = a.getBoundingClientRect();
        box = { left: Math.max(box.left, r.left), top: Math.max(box.top, r.top), right: Math.min(box.right, r.right), bottom: Math.min(box.bottom, r.bottom) };
      }
      return box;
    };
    for (const t of toasts) {
      const r = t.getBoundingClientRect();
      if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight) outside.push(t.textContent);
      for (const c of controls) {
        const b = seen(c);
        const w = Math.min(r.right, b.right) - Math.max(r.left, b.left);
        const hh = Math.min(r.bottom, b.bottom) - Math.max(r.top, b.top);
        if (w > 1 && hh > 1) covered.push(`“${t.querySelector('p')?.textContent}” covers “${name(c)}”`);
      }
    }
    return { count: toasts.length, covered, outside };
  });
}

/** chooseHere captures files through "Choose photos…", reaching Add
 * photos through the tabs (folded behind Menu at 200%). */
async function chooseHere(page, paths) {
  await harness('/test/dialog', { files: paths });
  await tab(page, 'Add photos');
  await page.getByRole('button', { name: 'Choose photos…' }).click();
}

/** keepWords chooses words of the reading from the keyboard (the arrows,
 * Shift and an arrow) and keeps them with Enter. */
async function keepWords(page, dialog, words) {
  await page.evaluate(() => document.getSelection().removeAllRanges());
  const text = dialog.getByTestId('reading-text').first();
  await text.focus();
  const all = (await text.innerText()).match(/[\p{L}\p{N}'’-]+/gu);
  const w = words.split(' ');
  const at = all.indexOf(w[0]);
  for (let i = 0; i <= at; i++) await page.keyboard.press('ArrowRight');
  for (let i = 1; i < w.length; i++) await page.keyboard.press('Shift+ArrowRight');
  await page.getByTestId('keep-bar').filter({ hasText: words }).waitFor();
  const kept = page.waitForResponse('**/rpc/Phrases/Keep');
  await page.keyboard.press('Enter');
  await (await kept).finished();
  await page.locator('#toasts .toast').filter({ hasText: `Kept “${words}”` }).first().waitFor();
}

test('toasts in the moment dialog: three kept phrases, at most two toasts, none over a control (4)', async () => {
  for (const [scheme, size] of [['light', { width: 1280, height: 800 }], ['dark', { width: 1280, height: 800 }], ['light', zoom200]]) {
    const { context, page } = await open({ ...size, colorScheme: scheme });
    const zoomed = size.width === 640;
    try {
      const { paths } = await harness('/test/generate', { n: 1 });
      await chooseHere(page, paths);
      const { card } = await cardOf(page, paths[0]);
      await card.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
      await card.locator('.card-open').click();
      const dialog = page.getByTestId('moment-dialog');
      await dialog.locator('[data-testid=reading][data-status=finished]').waitFor();
      // Dad keeps the same words three times (each says “Kept …”).
      for (let i = 0; i < 3; i++) await keepWords(page, dialog, 'red door');
      // The actions at the bottom of the dialog, where toasts used to stack.
      await dialog.getByTestId('ask-careful').scrollIntoViewIfNeeded();
      await page.waitForTimeout(100);
      const over = await toastsOver(page);
      console.log(`# ${scheme}${zoomed ? ', 200%' : ''}: ${over.count} toasts, ${over.covered.length} controls covered`);
      assert.ok(over.count <= 2, `at most two toasts (${over.count})`);
      assert.deepEqual(over.outside, [], 'every toast is inside the window');
      assert.deepEqual(over.covered, [], 'no toast covers a control of the dialog');
      const name = `walk-toasts-dialog${zoomed ? '-200' : ''}`;
      await shot(page, `${name}-${scheme}`);
      assert.deepEqual(await axe(page, `${name}, ${scheme}`), []);
      await page.keyboard.press('Escape');
    } finally {
      await context.close();
    }
  }
});

test('200%: the toast of a photo added again covers neither its card nor any control (4)', async () => {
  const { context, page } = await open(zoom200);
  try {
    const { paths } = await harness('/test/generate', { n: 1 });
    await chooseHere(page, paths);
    await (await cardOf(page, paths[0])).card.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
    await page.getByTestId('cards').scrollIntoViewIfNeeded();
    await chooseHere(page, paths);
    await page.locator('#toasts .toast').filter({ hasText: 'already in Spark' }).waitFor();
    const dup = page.locator('[data-testid=card][data-state=duplicate]').first();
    await dup.scrollIntoViewIfNeeded();
    await page.waitForTimeout(100);
    const over = await toastsOver(page);
    assert.deepEqual(over.outside, [], 'every toast is inside the window');
    assert.deepEqual(over.covered, [], 'no toast covers a control (the card it is about is one)');
    await shot(page, 'walk-toasts-capture-200-light');
    assert.deepEqual(await axe(page, 'Add photos with a toast, 200%'), []);
  } finally {
    await context.close();
  }
});

test('a duplicate card shows the photo and opens the moment it duplicates (9)', async () => {
  const violations = [];
  for (const size of [{ width: 1280, height: 800 }, zoom200]) {
    const zoomed = size.width === 640;
    const { context, page } = await open(size);
    try {
      const { paths } = await harness('/test/generate', { n: 1 });
      await chooseHere(page, paths);
      const { card: first, id } = await cardOf(page, paths[0]);
      await first.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
      // Sent and forgotten by the outbox's queue: a photo added long ago.
      await until(async () => (await rpc('Outbox/Entries')).length === 0, 'the photo is delivered');
      await chooseHere(page, paths);
      const dup = page.locator('[data-testid=card][data-state=duplicate]').first();
      await dup.waitFor();
      await dup.getByText('Already in Spark').waitFor();
      const img = dup.locator('.thumb img');
      await until(async () => (await img.count()) === 1 && (await img.evaluate((i) => i.complete && i.naturalWidth > 0)), 'the duplicate card shows the photo', 10_000);
      assert.equal(await dup.getAttribute('data-moment-id'), id, 'the card names the moment it duplicates');
      await page.locator('#toasts .toast').evaluateAll((ts) => ts.forEach((t) => t.remove()));
      if (!zoomed) violations.push(...(await shots(page, 'walk-duplicate-card')));
      else {
        await dup.scrollIntoViewIfNeeded();
        await shot(page, 'walk-duplicate-card-200-light');
        violations.push(...(await axe(page, 'duplicate card, 200%')));
      }
      await dup.locator('.card-open').click();
      const dialog = page.getByTestId('moment-dialog');
      await dialog.waitFor();
      assert.equal(await dialog.getAttribute('data-moment-id'), id, 'the card opens the moment it duplicates');
      await page.keyboard.press('Escape');
    } finally {
      await context.close();
    }
  }
  assert.deepEqual(violations, []);
});

test('a portrait photo leaves no gap before Caption; the dialog holds still when the viewer closes on another photo (8)', async () => {
  const { context, page } = await open({ width: 1280, height: 800 });
  const violations = [];
  try {
    // The portrait one first, so the landscape one is newer: first in Moments.
    const portrait = await harness('/test/generate', { n: 1, portrait: true });
    await chooseHere(page, portrait.paths);
    const { card: pcard, id: pid } = await cardOf(page, portrait.paths[0]);
    await pcard.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
    const landscape = await harness('/test/generate', { n: 1 });
    await chooseHere(page, landscape.paths);
    await until(async () => (await page.getByTestId('card').count()) === 2, 'a second card');
    const { card: lcard, id: lid } = await cardOf(page, landscape.paths[0]);
    await lcard.getByTestId('card-reading').filter({ hasText: 'red door' }).waitFor({ timeout: 60_000 });
    await tab(page, 'Moments');
    await page.locator(`[data-testid=moment-tile][data-moment="${lid}"]`).click();
    const dialog = page.getByTestId('moment-dialog');
    await dialog.locator('[data-testid=reading][data-status=finished]').waitFor();
    await until(async () => dialog.getByTestId('moment-image').evaluate((i) => i.complete && i.naturalWidth > 0), 'the photo shows', 10_000);
    const place = () =>
      dialog.evaluate((d) => {
        const p = d.querySelector('.picture-slot').getBoundingClientRect();
        const c = d.querySelector('.caption-edit').getBoundingClientRect();
        return { top: Math.round(d.getBoundingClientRect().top), pictureTop: Math.round(p.top), pictureHeight: Math.round(p.height), captionTop: Math.round(c.top) };
      });
    const before = await place();

    // Into the viewer, one photo on (the portrait one), and back.
    await dialog.getByTestId('open-viewer').click();
    await page.getByTestId('viewer').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Escape');
    // Every frame for a second: where the dialog and its photo are.
    const frames = await page.evaluate(
      () =>
        new Promise((resolve) => {
          const out = [];
          const end = performance.now() + 1000;
          const tick = () => {
            const d = document.querySelector('[data-testid=moment-dialog]');
            const p = d.querySelector('.picture-slot').getBoundingClientRect();
            out.push({ id: d.dataset.momentId, top: Math.round(d.getBoundingClientRect().top), pictureTop: Math.round(p.top), pictureHeight: Math.round(p.height), captionTop: Math.round(d.querySelector('.caption-edit').getBoundingClientRect().top) });
            if (performance.now() < end) requestAnimationFrame(tick);
            else resolve(out);
          };
          requestAnimationFrame(tick);
        }),
    );
    assert.equal(frames.at(-1).id, pid, 'the dialog shows the photo the viewer closed on');
    for (const f of frames.filter((x) => x.id === pid)) {
      for (const k of ['top', 'pictureTop', 'captionTop']) assert.ok(Math.abs(f[k] - before[k]) <= 2, `the dialog holds still: ${k} ${f[k]} against ${before[k]} (${JSON.stringify(frames.slice(0, 8))})`);
    }

    // The portrait photo: Caption follows the reading, not the photo's foot.
    const gap = await dialog.evaluate((d) => d.querySelector('.caption-edit').getBoundingClientRect().top - d.querySelector('.reading-first').getBoundingClientRect().bottom);
    console.log(`# portrait photo: ${Math.round(gap)} px between the reading and Caption; frames sampled ${frames.length}`);
    assert.ok(gap <= 24, `no gap before Caption (${Math.round(gap)} px)`);
    violations.push(...(await shots(page, 'walk-moment-portrait')));
    await page.keyboard.press('Escape');
  } finally {
    await context.close();
  }
  // And at 200%.
  const z = await open(zoom200);
  try {
    await tab(z.page, 'Moments');
    await z.page.locator('[data-testid=moment-tile][data-kind=photo]').first().click();
    const dialog = z.page.getByTestId('moment-dialog');
    await dialog.locator('[data-testid=reading][data-status=finished]').waitFor();
    await shot(z.page, 'walk-moment-200-light');
    violations.push(...(await axe(z.page, 'moment dialog, 200%')));
  } finally {
    await z.context.close();
  }
  assert.deepEqual(violations, []);
});

test('offline at 200%: one line of banner, one of status bar, a whole row of tiles (5)', async () => {
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  await rpc('Settings/UseRemote', remote.url, remote.token);
  const { context, page } = await launch({ width: 1280, height: 800 });
  const violations = [];
  try {
    await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
    const had = (await familyMoments(remote)).length;
    const { paths } = await harness('/test/generate', { n: 3 });
    await chooseHere(page, paths);
    await until(async () => (await familyMoments(remote)).length >= had + 3, 'the photos reach the family engine');
    await until(async () => (await rpc('Outbox/Entries')).length === 0, 'the photos are delivered');
    await harness('/test/remote/stop');
    await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
    await tab(page, 'Add photos');
    await page.locator('#note').fill('Ring the garage about the car');
    await page.getByRole('button', { name: 'Keep this note' }).click();
    await page.locator('[data-testid=waiting][data-count="1"]').waitFor();

    for (const scheme of ['light', 'dark']) {
      for (const size of [{ width: 1280, height: 800 }, zoom200]) {
        const zoomed = size.width === 640;
        const w = await launch({ ...size, colorScheme: scheme });
        try {
          await w.page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ state: 'attached', timeout: 30_000 });
          await tab(w.page, 'Moments');
          await w.page.getByTestId('moment-tile').first().waitFor();
          await w.page.waitForTimeout(200);
          const m = await w.page.evaluate(() => {
            const lh = (el) => parseFloat(getComputedStyle(el).lineHeight);
            const banner = document.querySelector('.banner');
            const bar = document.querySelector('.statusbar');
            const items = [...bar.querySelectorAll('.status-items > *')].filter((e) => e.checkVisibility());
            const sc = document.querySelector('[data-testid=moments-scroller]').getBoundingClientRect();
            const tiles = [...document.querySelectorAll('[data-testid=moment-tile]')].map((t) => t.getBoundingClientRect());
            const whole = tiles.filter((r) => r.top >= sc.top - 0.5 && r.bottom <= sc.bottom + 0.5).length;
            return {
              bannerLines: Math.round((banner.querySelector('.banner-line') ?? banner).getBoundingClientRect().height / lh(banner)),
              bannerHeight: Math.round(banner.getBoundingClientRect().height),
              barLines: Math.round(Math.max(...items.map((e) => e.getBoundingClientRect().bottom)) - Math.min(...items.map((e) => e.getBoundingClientRect().top))) / lh(bar),
              barHeight: Math.round(bar.getBoundingClientRect().height),
              scroller: Math.round(sc.height),
              whole,
              tile: tiles[0] ? Math.round(tiles[0].height) : 0,
            };
          });
          console.log(`# offline, ${scheme}${zoomed ? ', 200%' : ''}: ${JSON.stringify(m)}`);
          if (zoomed) {
            assert.ok(m.bannerHeight <= 48, `the banner is one line (${m.bannerHeight}px)`);
            assert.ok(m.barLines < 1.6, `the status bar is one line (${m.barLines} lines, ${m.barHeight}px)`);
          }
          assert.ok(m.whole >= 1, `a whole row of tiles shows (${m.whole} whole; scroller ${m.scroller}px, tile ${m.tile}px)`);
          const banner = w.page.locator('.banner');
          assert.match(await banner.innerText(), /The family engine can’t be reached right now\./);
          if (zoomed) {
            // The rest of what the banner says is behind Details, one click away.
            const more = banner.getByRole('button', { name: 'Details' });
            await more.click();
            await banner.getByText('1 note is waiting safely on this computer').waitFor();
            await shot(w.page, `walk-offline-banner-details-200-${scheme}`);
            violations.push(...(await axe(w.page, `offline banner details, 200%, ${scheme}`)));
            await more.click();
          }
          await shot(w.page, `walk-offline-moments${zoomed ? '-200' : ''}-${scheme}`);
          violations.push(...(await axe(w.page, `offline Moments${zoomed ? ', 200%' : ''}, ${scheme}`)));
        } finally {
          await w.context.close();
        }
      }
    }

  } finally {
    await harness('/test/remote/stop').catch(() => {});
    await useLocalEngine().catch(() => {});
    await context.close();
  }
  assert.deepEqual(violations, []);
});

test('a toast of something sent again goes once the Outbox says everything is sent (4)', async () => {
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  await rpc('Settings/UseRemote', remote.url, remote.token);
  const { context, page } = await launch({ width: 1280, height: 800 });
  try {
    await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
    await harness('/test/remote/stop');
    await page.locator('[data-testid=engine-state][data-state=offline]').waitFor({ timeout: 30_000 });
    await tab(page, 'Add photos');
    await page.locator('#note').fill('Post the birthday card to Ann');
    await page.getByRole('button', { name: 'Keep this note' }).click();
    await page.locator('[data-testid=waiting][data-count="1"]').waitFor();
    // "Send now" while it is away; its toast, held under the pointer, goes
    // once the Outbox says everything is sent.
    await tab(page, 'Outbox');
    await page.getByRole('button', { name: 'Send now' }).click();
    const news = page.locator('#toasts .toast').filter({ hasText: 'Trying to send now' });
    await news.waitFor();
    // The toast in its band above the status bar, over nothing.
    const over = await toastsOver(page);
    assert.deepEqual(over.covered, [], 'the toast covers no control of the Outbox');
    assert.deepEqual(await shots(page, 'walk-toast-outbox'), []);
    await news.hover();
    await harness('/test/remote/start', {});
    // "Everything is sent… Nothing is waiting." (main words it with where).
    await page.getByTestId('outbox-summary').filter({ hasText: /^Everything is sent.*Nothing is waiting\.$/ }).waitFor({ timeout: 60_000 });
    const sent = Date.now();
    await until(async () => (await news.count()) === 0, 'the toast goes once everything is sent', 2000);
    console.log(`# the "Trying to send now" toast went ${Date.now() - sent} ms after "Everything is sent…"`);
  } finally {
    await harness('/test/remote/stop').catch(() => {});
    await useLocalEngine().catch(() => {});
    await context.close();
  }
});
