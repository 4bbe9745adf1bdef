// Serve a built site on localhost as Cloudflare Pages would: `/journey` answers with
// journey.html, text is gzip-compressed, hashed assets are cached for good.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.woff2': 'font/woff2', '.json': 'application/json',
  '.patch': 'text/plain; charset=utf-8', '.sh': 'text/plain; charset=utf-8' };

/** Start serving `root`; resolves to `{ base, close }`. */
export async function serve(root, port = 0) {
  root = path.resolve(root);
  const server = http.createServer((req, res) => {
    let rel = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (rel.endsWith('/')) rel += 'index.html';
    if (!path.extname(rel)) rel += '.html';
    const file = path.join(root, rel);
    if (!file.startsWith(root) || !fs.existsSync(file)) {
      res.writeHead(404); res.end('not found'); return;
    }
    const type = types[path.extname(file)] ?? 'application/octet-stream';
    const headers = { 'content-type': type,
      'cache-control': /-[0-9a-f]{8}\.[a-z0-9]+$/.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache' };
    if (/text|javascript|svg|json/.test(type)) {
      headers['content-encoding'] = 'gzip';
      res.writeHead(200, headers);
      fs.createReadStream(file).pipe(zlib.createGzip()).pipe(res);
    } else {
      res.writeHead(200, headers);
      fs.createReadStream(file).pipe(res);
    }
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}
