// Copies the reader of words' files (issue 37) from node_modules into
// public/ocr/, which Vite copies into dist/ and so into the built app: the
// window reads the words in a photo with nothing fetched from the network.
//
//   ocr/worker.min.js                        tesseract.js's Web Worker
//   ocr/core/tesseract-core-simd-lstm.wasm.js the engine, WASM with SIMD (the
//   ocr/core/tesseract-core-lstm.wasm.js      .wasm is inside each .wasm.js),
//                                            and the plain build without SIMD
//   ocr/lang/CODE.traineddata.gz             one file per language code, from
//                                            each @tesseract.js-data/CODE package
//                                            that package.json depends on
//   ocr/lang/languages.json                  ["eng", ...]: the codes shipped
//   ocr/LICENSES/                            the packages' licences, and
//                                            packages.json: name, version, licence
//
// A language more is one npm package more (`npm install --save-exact
// @tesseract.js-data/fra@1.0.0`): nothing here changes. Idempotent and
// quick: a file whose copy has the same size and time is left alone, and a
// file of public/ocr/ that is no longer shipped is removed. public/ocr/ is
// not in git (.gitignore): it is made from node_modules at every build.
//
// Usage: node scripts/ocr-assets.mjs   (run by npm's prebuild, build:ui, predev)
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const frontend = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(frontend, 'public', 'ocr');
const require = createRequire(join(frontend, 'package.json'));

/** dir is the folder of an installed package, or a clear error. */
function dir(name) {
  try {
    return dirname(require.resolve(`${name}/package.json`));
  } catch {
    throw new Error(`ocr-assets: the package ${name} is not installed: run \`npm ci\` in frontend/`);
  }
}

const tesseract = dir('tesseract.js');
// tesseract.js-core is tesseract.js's own dependency: resolved from it, so
// the core is the one its worker was built for.
const core = dirname(createRequire(join(tesseract, 'package.json')).resolve('tesseract.js-core/package.json'));

/** @type {[string, string][]} [source, path under public/ocr] */
const files = [
  [join(tesseract, 'dist', 'worker.min.js'), 'worker.min.js'],
  // The worker is given one of these files by name (src/ocr.ts picks it by
  // the web view's SIMD support); each holds its .wasm inline, so no .wasm
  // is fetched apart.
  [join(core, 'tesseract-core-simd-lstm.wasm.js'), 'core/tesseract-core-simd-lstm.wasm.js'],
  [join(core, 'tesseract-core-lstm.wasm.js'), 'core/tesseract-core-lstm.wasm.js'],
];

// The licences: each package's licence file where it ships one, and the
// worker's notices of what it bundles; LICENSES/packages.json names each
// package, its version and licence (tesseract.js has no licence file).
/** @type {{ name: string, version: string, license: string }[]} */
const shipped = [];
function licences(name, folder) {
  const p = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  shipped.push({ name: p.name, version: p.version, license: p.license });
  const f = readdirSync(folder).find((n) => /^licen[cs]e/i.test(n));
  if (f) files.push([join(folder, f), `LICENSES/${name.replace('/', '-').replace('@', '')}.txt`]);
}
files.push([join(tesseract, 'dist', 'worker.min.js.LICENSE.txt'), 'LICENSES/worker.min.js.LICENSE.txt']);
licences('tesseract.js', tesseract);
licences('tesseract.js-core', core);

// Languages: every @tesseract.js-data/CODE the frontend depends on, its
// "best_int" LSTM data (the one OEM.LSTM_ONLY reads).
const pkg = JSON.parse(readFileSync(join(frontend, 'package.json'), 'utf8'));
const langs = Object.keys({ ...pkg.dependencies })
  .filter((n) => n.startsWith('@tesseract.js-data/'))
  .map((n) => n.slice('@tesseract.js-data/'.length))
  .sort();
if (langs.length === 0) throw new Error('ocr-assets: package.json depends on no @tesseract.js-data/CODE package: no language to ship');
for (const code of langs) {
  if (!/^[a-z]{3}(_[a-z]+)?$/.test(code)) throw new Error(`ocr-assets: ${code} is not a language code`);
  const data = dir(`@tesseract.js-data/${code}`);
  files.push([join(data, '4.0.0_best_int', `${code}.traineddata.gz`), `lang/${code}.traineddata.gz`]);
  licences(`@tesseract.js-data/${code}`, data);
}

let copied = 0;
const kept = new Set();
for (const [src, rel] of files) {
  if (!existsSync(src)) throw new Error(`ocr-assets: ${src} is missing: is the package complete?`);
  const dst = join(out, ...rel.split('/'));
  kept.add(dst);
  const s = statSync(src);
  if (existsSync(dst)) {
    const d = statSync(dst);
    // The copy's time is set from the source's, to the millisecond or so.
    if (d.size === s.size && Math.abs(d.mtimeMs - s.mtimeMs) < 2) continue;
  }
  mkdirSync(dirname(dst), { recursive: true });
  copyFileSync(src, dst);
  utimesSync(dst, s.atime, s.mtime);
  copied++;
}

// The list of languages and of packages, each written only when it
// changes (so its time, and Vite's copy of it, stays put).
for (const [rel, value] of [['lang/languages.json', langs], ['LICENSES/packages.json', shipped]]) {
  const f = join(out, ...rel.split('/'));
  kept.add(f);
  const text = JSON.stringify(value, null, 1) + '\n';
  if (!existsSync(f) || readFileSync(f, 'utf8') !== text) {
    mkdirSync(dirname(f), { recursive: true });
    writeFileSync(f, text);
    copied++;
  }
}

// Whatever else is under public/ocr (a language no longer depended on, an
// older layout) goes: the build ships exactly the list above.
let removed = 0;
(function sweep(d) {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) {
      sweep(p);
      if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
    } else if (!kept.has(p)) {
      rmSync(p);
      removed++;
    }
  }
})(out);

const rel = relative(process.cwd(), out).split(sep).join('/') || '.';
console.log(`ocr-assets: ${rel}: ${kept.size} files (${langs.join(', ')}), ${copied} copied, ${removed} removed`);
