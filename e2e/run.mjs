// Runs the browser end-to-end tests: builds and starts the harness (the
// real app layer on a temp data folder, see harness/main.go), runs the
// Playwright tests in tests/ with node's test runner against it, stops
// everything and prints "N passed, N failed". Bounded: the harness is
// killed after E2E_TIMEOUT seconds (default 300).
//
// Run from frontend/ with `npm run e2e` after `npm run build`.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');
const frontend = join(root, 'frontend');
const out = join(frontend, 'test-results');
mkdirSync(out, { recursive: true });
const limit = Number(process.env.E2E_TIMEOUT || 300) * 1000;

if (!existsSync(join(frontend, 'dist', 'assets'))) {
  console.log('e2e: building the UI first (npm run build)');
  execFileSync('npm', ['run', 'build'], { cwd: frontend, stdio: 'inherit' });
}
console.log('e2e: building the harness');
const bin = join(out, 'spark-harness');
execFileSync('go', ['build', '-o', bin, './e2e/harness'], { cwd: root, stdio: 'inherit' });

const urlFile = join(out, 'harness.url');
rmSync(urlFile, { force: true });
const harness = spawn(bin, ['-dist', join(frontend, 'dist'), '-url-file', urlFile], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
const stop = () => {
  if (harness.exitCode === null) harness.kill('SIGTERM');
};
process.on('exit', stop);
const killer = setTimeout(() => {
  console.error(`e2e: still running after ${limit / 1000}s: stopping`);
  stop();
  process.exit(1);
}, limit);

let url = '';
for (let i = 0; i < 200 && !url; i++) {
  if (harness.exitCode !== null) break;
  if (existsSync(urlFile)) url = readFileSync(urlFile, 'utf8').trim();
  else await new Promise((r) => setTimeout(r, 100));
}
if (!url) {
  console.error('e2e: the harness did not start');
  stop();
  process.exit(1);
}

const files = readdirSync(join(here, 'tests')).filter((f) => f.endsWith('.test.mjs')).map((f) => join(here, 'tests', f));
const tests = spawn(process.execPath, ['--test', '--test-concurrency=1', '--test-reporter=spec', ...files], {
  cwd: root,
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, SPARK_HARNESS_URL: url, SPARK_SCREENSHOTS: join(out, 'screenshots') },
});
let log = '';
tests.stdout.on('data', (b) => {
  process.stdout.write(b);
  log += b.toString();
});
const code = await new Promise((r) => tests.on('exit', r));
clearTimeout(killer);
stop();
const num = (k) => Number((log.match(new RegExp(`^ℹ ${k} (\\d+)`, 'm')) || [])[1] || 0);
console.log(`${num('pass')} passed, ${num('fail')} failed, ${num('skipped')} skipped`);
process.exit(code === 0 ? 0 : 1);
