// Reader-side audit: Lighthouse (lighthouse@12.2.3 from package.json) in Debian's Chromium on
// the journey, a chart-heavy page and the analyser page (its worker and WebAssembly module
// loaded), served compressed as on Cloudflare Pages.
// Fails when accessibility or best practices are below 100: both are checks of the
// page itself. Performance (target >= 95) and the transferred weight are printed, not
// enforced: Lighthouse derives them from timings on this machine, and timings belong in
// benchmarks, not in tests (see README).
// Usage: node lighthouse.mjs [SITE_DIR]   (LIGHTHOUSE=/path/to/lighthouse to use another)
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { serve } from './serve.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const site = process.argv[2] ?? path.join(here, '../../target/site');
const enforced = { accessibility: 100, 'best-practices': 100 };
const reported = { performance: 95 };
const server = await serve(site);
const flags = '--headless --no-sandbox --disable-gpu --disable-quic --no-first-run ' +
  '--disable-background-networking --disable-component-update --disable-sync';
const failures = [];
try {
  for (const page of ['/journey', '/related/chen-yu-2017', '/analyse']) {
    const lighthouse = process.env.LIGHTHOUSE ?? path.join(here, 'node_modules/.bin/lighthouse');
    // Asynchronously: the server runs in this process and must keep answering.
    const { stdout: out } = await promisify(execFile)(lighthouse, [
      `${server.base}${page}`, `--chrome-path=${process.env.CHROMIUM ?? '/usr/bin/chromium'}`,
      `--chrome-flags=${flags}`, '--only-categories=performance,accessibility,best-practices',
      '--output=json', '--output-path=stdout', '--quiet'], { maxBuffer: 256 << 20 });
    const report = JSON.parse(out);
    const score = (id) => Math.round(report.categories[id].score * 100);
    const scores = Object.keys(report.categories).map((id) => `${id} ${score(id)}`);
    const weight = Math.round(report.audits['total-byte-weight'].numericValue / 1024);
    console.log(`${page}: ${scores.join(', ')}; transferred ${weight} KiB`);
    for (const [id, audit] of Object.entries(report.audits)) {
      if (audit.score !== null && audit.score < 0.9 && ['binary', 'numeric'].includes(audit.scoreDisplayMode)) {
        console.log(`  ${id}: ${audit.displayValue ?? audit.score}`);
      }
    }
    for (const [id, target] of Object.entries(enforced)) {
      if (score(id) < target) failures.push(`${page}: ${id} ${score(id)} < ${target}`);
    }
    for (const [id, target] of Object.entries(reported)) {
      if (score(id) < target) console.log(`  note: ${id} ${score(id)} is under the target ${target} on this run`);
    }
  }
} finally {
  server.close();
}
if (failures.length) {
  console.error(`Lighthouse targets missed:\n${failures.join('\n')}`);
  process.exit(1);
}
