// Reads `go test -json` from stdin and prints what a person wants to see:
// one line per package (ok / FAIL / skip counts), the full output of every
// failed test, and the names of skipped tests with their reason. It adds its
// counts to the JSON file named by argv[2] (created if absent) so the test
// script can close with one summary line, and exits 1 when anything failed.
import { createInterface } from "node:readline";
import { existsSync, readFileSync, writeFileSync } from "node:fs";

const countsFile = process.argv[2];
const out = new Map(); // "pkg\x00test" -> output lines
const pkgs = new Map(); // pkg -> {pass, fail, skip, action, elapsed, output}
let pass = 0, fail = 0, skip = 0, buildFail = false;

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  let ev;
  try { ev = JSON.parse(line); } catch { console.log(line); if (/build failed|cannot find|undefined:/.test(line)) buildFail = true; continue; }
  if (ev.Action === "build-output") { process.stdout.write(ev.Output ?? ""); continue; }
  if (ev.Action === "build-fail") { buildFail = true; continue; }
  const pkg = ev.Package ?? "";
  if (!pkgs.has(pkg)) pkgs.set(pkg, { pass: 0, fail: 0, skip: 0, action: "", elapsed: 0, output: [] });
  const p = pkgs.get(pkg);
  if (!ev.Test) {
    if (ev.Action === "output") p.output.push(ev.Output);
    if (["pass", "fail", "skip"].includes(ev.Action)) { p.action = ev.Action; p.elapsed = ev.Elapsed ?? 0; }
    continue;
  }
  const key = pkg + "\x00" + ev.Test;
  if (ev.Action === "output") {
    if (!out.has(key)) out.set(key, []);
    out.get(key).push(ev.Output);
  } else if (ev.Action === "pass") { pass++; p.pass++; out.delete(key); }
  else if (ev.Action === "skip") {
    skip++; p.skip++;
    const why = (out.get(key) ?? []).filter((l) => /_test\.go:\d+:/.test(l)).map((l) => l.trim()).join(" ");
    if (!ev.Test.includes("/")) console.log(`  skip ${pkg} ${ev.Test}${why ? ": " + why : ""}`);
    out.delete(key);
  } else if (ev.Action === "fail") {
    fail++; p.fail++;
    console.log(`--- FAIL: ${pkg} ${ev.Test}`);
    process.stdout.write((out.get(key) ?? []).join(""));
  }
}
for (const [pkg, p] of pkgs) {
  if (!pkg) continue;
  if (p.action === "fail" && p.fail === 0) {
    // A package that failed outside any test (a panic, a TestMain, a build error).
    fail++;
    console.log(`--- FAIL: ${pkg} (outside any test)`);
    process.stdout.write(p.output.join(""));
  }
  const word = p.action === "fail" ? "FAIL" : p.action === "skip" ? "?   " : "ok  ";
  const n = p.pass + p.fail + p.skip;
  console.log(`${word} ${pkg}${n ? `  ${p.pass} passed, ${p.fail} failed, ${p.skip} skipped` : "  (no tests)"}  ${p.elapsed.toFixed(1)}s`);
}
if (buildFail) { fail++; console.log("--- FAIL: the build failed (see above)"); }
if (countsFile) {
  const c = existsSync(countsFile) ? JSON.parse(readFileSync(countsFile, "utf8")) : { pass: 0, fail: 0, skip: 0 };
  c.pass += pass; c.fail += fail; c.skip += skip;
  writeFileSync(countsFile, JSON.stringify(c));
}
console.log(`go test: ${pass} passed, ${fail} failed, ${skip} skipped`);
process.exit(fail > 0 ? 1 : 0);
