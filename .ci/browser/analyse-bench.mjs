// Benchmark of the page "Analyse your own log" against the native `kernlog`, in one run: a
// 50 MiB log (a QEMU lab log of three cycles, repeated) analysed by `kernlog analyze --json`
// and by the page in Debian's Chromium under Cloudflare's Pages runtime, from the click to
// the shown result. Prints both times, the ratio (the target: at most 5x) and the
// cycle counts, which must agree. Timings are this machine's: printed, not enforced.
// Usage: node analyse-bench.mjs [SITE_DIR]   (needs the module: .ci/wasm --site SITE_DIR;
// KERNLOG names the native kernlog, by default the one on PATH)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const site = path.resolve(process.argv[2] ?? path.join(repo, 'target/site'));
if (!fs.existsSync(path.join(site, 'analyse/kernlab-wasm.js'))) {
  console.error(`${site} has no analyse/kernlab-wasm.js: run .ci/wasm --site ${site} first`);
  process.exit(1);
}
const one = fs.readFileSync(path.join(repo, 'data/qemu-lab/without-fix-seabios/kernel.log'));
const copies = Math.ceil((50 << 20) / one.length);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'analyse-bench-'));
const log = path.join(dir, 'kernel.log');
fs.writeFileSync(log, Buffer.concat(Array(copies).fill(one)));
const mib = (fs.statSync(log).size / 1048576).toFixed(1);

// The native run writes its document to a file, as a user would; read after the timing.
const json = path.join(dir, 'analysis.json');
const fd = fs.openSync(json, 'w');
const t0 = process.hrtime.bigint();
execFileSync(process.env.KERNLOG ?? 'kernlog', ['analyze', '--json', log], { stdio: ['ignore', fd, 'inherit'] });
const nativeS = Number(process.hrtime.bigint() - t0) / 1e9;
fs.closeSync(fd);
const native = JSON.parse(fs.readFileSync(json, 'utf8'));

const server = await serve(site);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
});
try {
  const page = await browser.newPage();
  await page.goto(`${server.base}/analyse`, { waitUntil: 'networkidle' });
  await page.waitForFunction(() => /works offline/.test(document.getElementById('kl-status').textContent));
  await page.setInputFiles('#kl-files', log);
  const start = Date.now();
  await page.click('#kl-run');
  await page.waitForFunction(() => /^Done|not analysed/.test(document.getElementById('kl-status').textContent),
    null, { timeout: 600_000 });
  const pageS = (Date.now() - start) / 1000;
  // The section's facts: "N suspend/resume cycles, R of them resumed with a CPU bring-up".
  const facts = await page.locator('#kl-results section dt:text-is("cycles") + dd').innerText();
  const shown = Number(/^(\d+) suspend\/resume cycle/.exec(facts)?.[1]);
  console.log(`${mib} MiB log: kernlog analyze --json ${nativeS.toFixed(2)} s, the page ${pageS.toFixed(2)} s `
    + `(${(pageS / nativeS).toFixed(1)}x); cycles: ${native.cycles.length} native, ${shown} shown`);
  if (shown !== native.cycles.length) process.exitCode = 1;
} finally {
  await browser.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
