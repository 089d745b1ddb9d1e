// Helpers shared by the end-to-end tests: Debian's Chromium through
// playwright-core (never a downloaded browser), the harness's test routes,
// and screenshots.
import { before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// playwright-core is installed with the frontend's packages.
const require = createRequire(join(import.meta.dirname, '..', '..', 'frontend', 'package.json'));
const { chromium } = require('playwright-core');
const axePath = require.resolve('axe-core/axe.min.js');

/** url is the harness's address, read when used (perf.mjs sets it late). */
export const url = () => process.env.SPARK_HARNESS_URL ?? '';
export const shots = process.env.SPARK_SCREENSHOTS ?? join(tmpdir(), 'spark-screenshots');
mkdirSync(shots, { recursive: true });

export const chromiumPath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** launch starts Chromium with a fresh profile and opens the app. */
export async function launch({ width = 1180, height = 800, colorScheme = 'light', deviceScaleFactor = 1, readWords = false } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'spark-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport: { width, height },
    deviceScaleFactor,
    colorScheme,
  });
  // The reader of words in photos (wordsreader.ts) reads every photo a
  // test adds, a second or more of the CPU each: off, but where a test
  // is about it. It is the app's own setting (Settings, "Words in
  // photos"), which the harness's one app keeps for the windows after:
  // each window sets it as it needs.
  await rpc('Settings/SetWordsLang', readWords ? 'eng' : 'off');
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(20_000);
  await page.goto(url());
  return { context, page };
}

/** harness calls a test route of the harness. */
export async function harness(path, body = {}) {
  const r = await fetch(url() + path, { method: 'POST', body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** choose captures files through the real "Choose photos…" button: the
 * harness's file dialog answers with paths. */
export async function choose(page, paths) {
  await harness('/test/dialog', { files: paths });
  // The tab, not any "Add photos": the empty Moments has one of its own.
  await tab(page, 'Add photos');
  await page.getByRole('button', { name: 'Choose photos…' }).click();
}

/** cardOf is the capture card of the photo at path, found by its file's
 * name (the harness never names two photos alike), once it knows its
 * moment: { card, id }. Not getByTestId('card').first(): that is whichever
 * card is first when each call asks, and on a busy machine it is still an
 * earlier test's card (read, sent, "blue cup" and all) until the new
 * photo's card is added above it, so a test read one moment's id and
 * opened another. */
export async function cardOf(page, path) {
  const name = path.split(/[\\/]/).pop();
  const card = page.getByTestId('card').filter({ has: page.locator(`.name[title="${name}"]`) });
  const id = await until(async () => (await card.count()) === 1 && (await card.getAttribute('data-moment-id')), `the card of ${name} with its moment`);
  return { card, id };
}

/** tab opens a screen from the tabs; in a narrow window (200% zoom) they
 * are folded behind the menu button, which it opens first. */
export async function tab(page, name) {
  const b = page.locator('nav.tabs').getByRole('button', { name });
  const menu = page.getByTestId('menu');
  // After a load the window draws once the first page of Moments is read
  // (up to 1.5 s): wait for the tab, or for the menu where the header is
  // folded, before asking which one shows.
  const shown = await until(async () => ((await b.isVisible()) ? 'tab' : (await menu.isVisible()) ? 'menu' : ''), `the ${name} tab or the menu`, 20_000);
  if (shown === 'menu') await menu.click();
  await b.click();
}

export async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

/** until polls fn (in the test) until it returns a truthy value. */
export async function until(fn, what, timeout = 60_000) {
  const end = Date.now() + timeout;
  let last;
  while (Date.now() < end) {
    last = await fn();
    if (last) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(last)})`);
}

/** rpc calls a bound method of the app, as the UI does. */
export async function rpc(path, ...args) {
  const r = await fetch(`${url()}/rpc/${path}`, { method: 'POST', body: JSON.stringify(args) });
  const out = await r.json();
  if (out.error) {
    // The window gets a code with its names and numbers (app.UIError), never
    // a sentence: words.ts words it. The error carries them as `ui`.
    const e = out.error;
    const err = new Error(`${path}: ${[e.code, e.name, e.detail].filter(Boolean).join(': ')}`);
    err.ui = e;
    throw err;
  }
  return out.result;
}

/** holdRpc holds back the window's next call of the Go binding at path
 * ('Settings/Get'): askedFor resolves once it is asked; release lets it
 * through and resolves once its answer has come (then the hold is gone;
 * a second release does nothing). A slow machine's answer, on demand. */
export async function holdRpc(page, path) {
  const pattern = `**/rpc/${path}`;
  let asked;
  const askedFor = new Promise((r) => (asked = r));
  let go;
  const released = new Promise((r) => (go = r));
  await page.route(pattern, async (route) => {
    asked();
    await released;
    await route.continue();
  });
  let done = null;
  const release = () =>
    (done ??= (async () => {
      const answered = page.waitForResponse(pattern);
      go();
      await (await answered).finished();
      await page.unroute(pattern);
    })());
  return { askedFor, release };
}

/** useLocalEngine puts the app back on its own engine (a test before may
 * have left it on the family engine). */
export async function useLocalEngine() {
  const s = await rpc('Settings/Get');
  if (s.engine !== 'local') await rpc('Settings/UseLocal');
}

/** localWindow opens, before a test file's tests, the window on the app's
 * own engine (opts as launch's), waits until it says it is connected, and
 * hands it to got; after the tests it closes it. */
export function localWindow(got, opts = {}) {
  let context;
  before(async () => {
    assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
    await useLocalEngine();
    const w = await launch(opts);
    context = w.context;
    got(w);
    await w.page.locator('[data-testid=engine-state][data-state=connected]').waitFor();
  });
  after(async () => {
    await context?.close();
  });
}

/** openOnFamily starts the harness's family engine, points the app at it
 * and opens the window, once it says it is connected to the family
 * engine. It returns the window and the engine's { url, token }. */
export async function openOnFamily() {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  await rpc('Settings/UseRemote', remote.url, remote.token);
  const { context, page } = await launch();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'family engine' }).waitFor();
  return { context, page, remote };
}

/** openBesideFamily starts the harness's family engine but keeps the app
 * on its own engine, and opens the window once it says it is connected
 * to this computer. It returns the window and the engine's { url, token }. */
export async function openBesideFamily() {
  assert.ok(url(), 'SPARK_HARNESS_URL is set (run through e2e/run.mjs)');
  await useLocalEngine();
  const remote = await harness('/test/remote/prepare');
  await harness('/test/remote/start', {});
  const { context, page } = await launch();
  await page.locator('[data-testid=engine-state][data-state=connected]').filter({ hasText: 'this computer' }).waitFor();
  return { context, page, remote };
}

/** appMoments is every moment the app shows from the engine it uses
 * (Moments.Page, the window's own call), read page by page. */
export async function appMoments() {
  const all = [];
  for (let before = ''; ; ) {
    const p = await rpc('Moments/Page', before, 200);
    all.push(...p.moments);
    if (!p.next) return all;
    before = p.next;
  }
}

/** familyMoments is every live moment the family engine (remote, as
 * openOnFamily returns it) serves, newest first, read page by page. */
export async function familyMoments(remote) {
  const all = [];
  for (let before = ''; ; ) {
    const r = await fetch(`${remote.url}/v1/moments?limit=200${before ? `&before=${before}` : ''}`, { headers: { Authorization: `Bearer ${remote.token}` } });
    assert.equal(r.status, 200, `GET /v1/moments: ${r.status}`);
    const page = await r.json();
    all.push(...page.moments);
    if (!page.next) return all;
    before = page.next;
  }
}

/** aimAtWords returns where a hand aims to select words in a reading's
 * text (a locator): inside the first word, and inside the last. */
export async function aimAtWords(text, words) {
  return text.evaluate((el, w) => {
    const node = el.firstChild;
    const at = node.textContent.indexOf(w);
    const point = (i) => {
      const r = document.createRange();
      r.setStart(node, i);
      r.setEnd(node, i + 1);
      const b = r.getBoundingClientRect();
      return { x: b.left + b.width / 2, y: b.top + b.height / 2 };
    };
    return [point(at + 1), point(at + w.length - 2)];
  }, words);
}

/** axe runs axe-core over the page as it is and returns its violations. */
export async function axe(p, where) {
  if (!(await p.evaluate(() => 'axe' in window))) await p.addScriptTag({ path: axePath });
  const found = await p.evaluate(async () => {
    const r = await window.axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] }, resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, help: v.help, nodes: v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(1).join(' ')}`) }));
  });
  return found.map((v) => ({ where, ...v }));
}

/** looks takes the window as it is in light, in dark and at 200% zoom
 * (590×400 CSS pixels, as access.test.mjs), into NAME-light.png,
 * NAME-dark.png and NAME-200.png, and runs axe-core on each; it returns
 * the violations. again(), when given, draws the screen anew once the
 * window is resized (a selection, say). After, the window is back at
 * 1180×800 in light. */
export async function looks(page, name, again = async () => {}) {
  const found = [];
  await shot(page, `${name}-light`);
  found.push(...(await axe(page, `${name}, light`)));
  await page.emulateMedia({ colorScheme: 'dark' });
  await shot(page, `${name}-dark`);
  found.push(...(await axe(page, `${name}, dark`)));
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 590, height: 400 });
  await again();
  await shot(page, `${name}-200`);
  found.push(...(await axe(page, `${name}, 200%`)));
  await page.setViewportSize({ width: 1180, height: 800 });
  return found;
}

/** drawn runs draw(arg) in page, a function that returns a canvas's
 * data: URL (it must be self-contained: it runs in the page), and writes
 * the picture to a file named NAME-TIME-N.EXT in a new temp folder: the
 * harness never names two photos alike. It returns the file's path. */
let drawnCount = 0;
async function drawn(page, name, draw, arg) {
  const url = await page.evaluate(draw, arg);
  const [head, data] = url.split(',');
  const ext = head.includes('image/jpeg') ? 'jpg' : 'png';
  const path = join(mkdtempSync(join(tmpdir(), `spark-${name}-`)), `${name}-${Date.now()}-${++drawnCount}.${ext}`);
  writeFileSync(path, Buffer.from(data, 'base64'));
  return path;
}

/** letter draws a printed letter in page (a canvas) and writes it to a
 * PNG file, as a scan or a photo of a letter would come: black serif
 * lines on white, width x height pixels. */
export function letter(page, lines = ['Severn Water', 'Your reference RD/7731/Q', 'Amount due 41.20'], { width = 1400, height = 700 } = {}) {
  return drawn(
    page,
    'letter',
    ({ lines, width, height }) => {
      const c = document.createElement('canvas');
      c.width = width;
      c.height = height;
      const g = c.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, c.width, c.height);
      g.fillStyle = '#111';
      g.font = '64px serif';
      lines.forEach((l, i) => g.fillText(l, 80, 150 + i * 140));
      return c.toDataURL('image/png');
    },
    { lines, width, height },
  );
}

/** texture draws in page a photo with no text in it (short dark strokes
 * on white, 1600x1200, from a seeded random: the same each run for a
 * seed), which the reader reads as marks and letters it is unsure of,
 * and writes it to a PNG file. */
export function texture(page, seed = 7) {
  return drawn(
    page,
    'texture',
    (seed) => {
      const c = document.createElement('canvas');
      c.width = 1600;
      c.height = 1200;
      const g = c.getContext('2d');
      g.fillStyle = '#fff';
      g.fillRect(0, 0, c.width, c.height);
      const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
      g.strokeStyle = '#222';
      g.lineWidth = 3;
      for (let i = 0; i < 1400; i++) {
        const x = rnd() * c.width;
        const y = rnd() * c.height;
        g.beginPath();
        g.moveTo(x, y);
        g.lineTo(x + (rnd() - 0.5) * 30, y + 10 + rnd() * 25);
        g.stroke();
      }
      return c.toDataURL('image/png');
    },
    seed,
  );
}

/** scene draws in page a photo with no text in it, as a camera's might
 * be, and writes it to a JPEG file (quality 85, 1600x1200): a sky of a
 * seeded hue over the ground, shapes of many colours (a house, trees, a
 * car), and, in two of three seeds, grass or leaves of short strokes;
 * noise over all. Each seed draws another photo, the same each run. */
export function scene(page, seed) {
  return drawn(
    page,
    'scene',
    (seed) => {
      let s = seed * 7919 + 17;
      const rnd = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
      const c = document.createElement('canvas');
      c.width = 1600;
      c.height = 1200;
      const g = c.getContext('2d');
      const hue = Math.floor(rnd() * 360);
      const horizon = 500 + rnd() * 300;
      const sky = g.createLinearGradient(0, 0, 0, horizon);
      sky.addColorStop(0, `hsl(${hue} 60% 55%)`);
      sky.addColorStop(1, `hsl(${(hue + 40) % 360} 50% 85%)`);
      g.fillStyle = sky;
      g.fillRect(0, 0, 1600, horizon);
      const ground = g.createLinearGradient(0, horizon, 0, 1200);
      ground.addColorStop(0, `hsl(${(hue + 120) % 360} 40% 45%)`);
      ground.addColorStop(1, `hsl(${(hue + 150) % 360} 45% 25%)`);
      g.fillStyle = ground;
      g.fillRect(0, horizon, 1600, 1200 - horizon);
      const colour = () => `hsl(${Math.floor(rnd() * 360)} ${30 + rnd() * 50}% ${25 + rnd() * 50}%)`;
      for (let i = 0, n = 8 + Math.floor(rnd() * 20); i < n; i++) {
        g.fillStyle = colour();
        const x = rnd() * 1600;
        const y = horizon - 300 + rnd() * 700;
        const w = 60 + rnd() * 400;
        const h = 60 + rnd() * 300;
        g.beginPath();
        if (rnd() < 0.5) g.ellipse(x, y, w / 2, h / 2, rnd() * Math.PI, 0, 2 * Math.PI);
        else if (rnd() < 0.5) g.rect(x - w / 2, y - h / 2, w, h);
        else {
          g.moveTo(x - w / 2, y + h / 2);
          g.lineTo(x, y - h / 2);
          g.lineTo(x + w / 2, y + h / 2);
        }
        g.fill();
      }
      if (seed % 3 !== 0) {
        g.lineWidth = 2 + rnd() * 3;
        for (let i = 0, n = 400 + Math.floor(rnd() * 1200); i < n; i++) {
          g.strokeStyle = `hsl(${(hue + 100 + rnd() * 60) % 360} 50% ${15 + rnd() * 30}%)`;
          const x = rnd() * 1600;
          const y = horizon + rnd() * (1200 - horizon);
          g.beginPath();
          g.moveTo(x, y);
          g.lineTo(x + (rnd() - 0.5) * 20, y - 10 - rnd() * 30);
          g.stroke();
        }
      }
      const img = g.getImageData(0, 0, 1600, 1200);
      const d = img.data;
      for (let i = 0; i < d.length; i += 4) {
        const n = (rnd() - 0.5) * 24;
        d[i] += n;
        d[i + 1] += n;
        d[i + 2] += n;
      }
      g.putImageData(img, 0, 0);
      return c.toDataURL('image/jpeg', 0.85);
    },
    seed,
  );
}
