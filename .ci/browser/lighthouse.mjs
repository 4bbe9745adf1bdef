// Reader-side audit: Lighthouse (npm lighthouse@12.2.3) in Debian's Chromium on the journey
// and a chart-heavy page, served compressed as on Cloudflare Pages. Prints the scores and the
// transferred page weight; targets: performance >= 95, accessibility 100, best practices >= 95.
// Usage: npm install --no-save lighthouse@12.2.3 && node lighthouse.mjs [SITE_DIR]
// (or LIGHTHOUSE=/path/to/lighthouse node lighthouse.mjs)
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { serve } from './serve.mjs';

const here = path.dirname(new URL(import.meta.url).pathname);
const site = process.argv[2] ?? path.join(here, '../../target/site');
const server = await serve(site);
const flags = '--headless --no-sandbox --disable-gpu --disable-quic --no-first-run ' +
  '--disable-background-networking --disable-component-update --disable-sync';
try {
  for (const page of ['/journey', '/related/chen-yu-2017']) {
    const lighthouse = process.env.LIGHTHOUSE ?? path.join(here, 'node_modules/.bin/lighthouse');
    // Asynchronously: the server runs in this process and must keep answering.
    const { stdout: out } = await promisify(execFile)(lighthouse, [
      `${server.base}${page}`, `--chrome-path=${process.env.CHROMIUM ?? '/usr/bin/chromium'}`,
      `--chrome-flags=${flags}`, '--only-categories=performance,accessibility,best-practices',
      '--output=json', '--output-path=stdout', '--quiet'], { maxBuffer: 256 << 20 });
    const report = JSON.parse(out);
    const scores = Object.values(report.categories).map((c) => `${c.id} ${Math.round(c.score * 100)}`);
    const weight = Math.round(report.audits['total-byte-weight'].numericValue / 1024);
    console.log(`${page}: ${scores.join(', ')}; transferred ${weight} KiB`);
    for (const [id, audit] of Object.entries(report.audits)) {
      if (audit.score !== null && audit.score < 0.9 && ['binary', 'numeric'].includes(audit.scoreDisplayMode)) {
        console.log(`  ${id}: ${audit.displayValue ?? audit.score}`);
      }
    }
  }
} finally {
  server.close();
}
