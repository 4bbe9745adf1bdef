// Serve a built site on localhost with Cloudflare's own Pages runtime, `wrangler pages dev`
// (the workerd binary comes with the npm package): `_headers` and `_redirects` apply,
// `/journey.html` redirects to `/journey`, unknown paths get the 404 page, as on the real
// site. wrangler is pinned in package.json to the last 4.x that runs on Node.js 20.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

const here = path.dirname(new URL(import.meta.url).pathname);
// No later than the date the pinned runtime supports.
const COMPATIBILITY_DATE = '2026-01-01';

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** Start serving `root`; resolves to `{ base, close }` once the runtime answers. */
export async function serve(root, timeoutMs = 60_000) {
  const port = await freePort();
  const child = spawn(path.join(here, 'node_modules/.bin/wrangler'),
    ['pages', 'dev', path.resolve(root), '--ip', '127.0.0.1', '--port', String(port),
      '--compatibility-date', COMPATIBILITY_DATE, '--log-level', 'warn'],
    { env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`wrangler pages dev exited (${child.exitCode}):\n${output}`);
    }
    try {
      const res = await fetch(`${base}/`, { redirect: 'manual' });
      if (res.status < 500) break;
    } catch { /* not listening yet */ }
    if (Date.now() - started > timeoutMs) {
      child.kill('SIGTERM');
      throw new Error(`wrangler pages dev did not answer within ${timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    base,
    close: () => new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    }),
  };
}
