// Builds and starts the harness (see harness/main.go) for the end-to-end
// tests and the performance figures.
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const frontend = join(root, 'frontend');
export const out = join(frontend, 'test-results');

/** startHarness builds the UI if needed and the harness, starts it and
 * returns its URL, its process and a stop function. */
export async function startHarness({ args = [] } = {}) {
  mkdirSync(out, { recursive: true });
  if (!existsSync(join(frontend, 'dist', 'assets'))) {
    console.log('building the UI first (npm run build)');
    execFileSync('npm', ['run', 'build'], { cwd: frontend, stdio: 'inherit' });
  }
  console.log('building the harness');
  const bin = join(out, 'spark-harness');
  execFileSync('go', ['build', '-o', bin, './e2e/harness'], { cwd: root, stdio: 'inherit' });
  const urlFile = join(out, 'harness.url');
  rmSync(urlFile, { force: true });
  const proc = spawn(bin, ['-dist', join(frontend, 'dist'), '-url-file', urlFile, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const stop = () => {
    if (proc.exitCode === null) proc.kill('SIGTERM');
  };
  process.on('exit', stop);
  let url = '';
  for (let i = 0; i < 300 && !url; i++) {
    if (proc.exitCode !== null) break;
    if (existsSync(urlFile)) url = readFileSync(urlFile, 'utf8').trim();
    else await new Promise((r) => setTimeout(r, 100));
  }
  if (!url) {
    stop();
    throw new Error('the harness did not start');
  }
  return { url, proc, stop };
}
