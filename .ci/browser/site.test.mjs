// The built notebook as a reader sees it, in Debian's Chromium (no downloaded browser).
// Usage: node --test site.test.mjs (SITE_DIR, default target/site; SCREENSHOT_DIR, default
// target/screenshots)
// Serves SITE_DIR with Cloudflare's Pages runtime (wrangler pages dev), then checks: the headers,
// redirects, 404 page and caching Pages applies; no console errors on the journey and on a
// chart-heavy page; the anchors the cover letter cites scroll to their headings; charts are
// visible and their bars contrast with the page in the light and the navy theme; the page is
// readable on a phone (chart labels of 10 px or more, the MTRR changes table reflowed; on the
// landing page, the lab and the checklist nothing wider than the screen, scroll boxes marked,
// provenance by tap); the sidebar toggle works as a button; search finds the journey; print
// includes the charts; the checklist's kernlog download resolves and matches its SHA-256, and
// its download and check commands, run as the page gives them, pass (and stop a bad .sha256);
// the cover letter copied out of its page is the series' plain-text letter.
import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { serve } from './serve.mjs';

const repo = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const site = path.resolve(process.env.SITE_DIR ?? path.join(repo, 'target/site'));
const shots = path.resolve(process.env.SCREENSHOT_DIR ?? path.join(repo, 'target/screenshots'));
fs.mkdirSync(shots, { recursive: true });

const server = await serve(site);
const base = server.base;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function open(url, theme = 'light') {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((t) => localStorage.setItem('mdbook-theme', t), theme);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`); });
  page.on('requestfailed', (r) => errors.push(`request failed: ${r.url()}`));
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()}: ${r.url()}`); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}${url}`, { waitUntil: 'networkidle' });
  return { page, errors, context };
}

test.after(async () => { await browser.close(); server.close(); });

for (const url of ['/journey', '/related/chen-yu-2017']) {
  test(`${url} loads without console errors`, async () => {
    const { page, errors, context } = await open(url);
    assert.deepEqual(errors, []);
    const name = url.replaceAll('/', '_').replace(/^_/, '');
    await page.screenshot({ path: path.join(shots, `${name}.png`) });
    await context.close();
  });
}

for (const [id, title] of [['changes-after-resume', 'Changes after resume'], ['id3', 'Version summary'],
  ['cost-of-extra-checks', 'Cost of extra checks'], ['initial-investigation', 'Initial investigation']]) {
  test(`/journey#${id} scrolls to "${title}"`, async () => {
    const { page, context } = await open(`/journey#${id}`);
    const heading = page.locator(`#${id}`);
    assert.equal((await heading.innerText()).trim(), title);
    const box = await heading.boundingBox();
    assert.ok(box && box.y >= 0 && box.y < 300, `#${id} is at y=${box?.y}`);
    await page.screenshot({ path: path.join(shots, `anchor-${id}.png`) });
    await context.close();
  });
}

// WCAG contrast of two computed CSS colours.
const rgb = (c) => (c.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map(Number);
const luminance = (c) => {
  const [r, g, b] = rgb(c).map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a, b) => { const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };

for (const theme of ['light', 'navy']) {
  test(`charts are visible and readable in the ${theme} theme`, async () => {
    const { page, errors, context } = await open('/journey#fig-bringup-stock', theme);
    assert.deepEqual(errors, []);
    const chart = page.locator('#fig-bringup-stock svg.kl-chart:visible');
    await chart.scrollIntoViewIfNeeded();
    const box = await chart.boundingBox();
    assert.ok(box && box.width > 300 && box.height > 100, `chart box ${JSON.stringify(box)}`);
    const [bar, text, background] = await page.evaluate(() => {
      const rect = document.querySelector('#fig-bringup-stock rect.kl-bar');
      const label = document.querySelector('#fig-bringup-stock text.kl-label');
      // The first opaque background behind the chart (the canvas is white).
      let bg = 'rgb(255, 255, 255)';
      for (let el = rect; el; el = el.parentElement) {
        const c = getComputedStyle(el).backgroundColor;
        if (c && c !== 'transparent' && !c.startsWith('rgba(0, 0, 0, 0)')) { bg = c; break; }
      }
      return [getComputedStyle(rect).fill, getComputedStyle(label).fill, bg];
    });
    assert.ok(contrast(text, background) >= 4.5, `label ${text} on ${background}`);
    assert.ok(contrast(bar, background) >= 3, `bar ${bar} on ${background}`);
    await chart.screenshot({ path: path.join(shots, `chart-${theme}.png`) });
    await context.close();
  });

  test(`every probe-map cell is readable in the ${theme} theme`, async () => {
    const { page, errors, context } = await open('/journey#fig-probe-map', theme);
    assert.deepEqual(errors, []);
    const map = page.locator('#fig-probe-map svg.kl-heatmap');
    await map.scrollIntoViewIfNeeded();
    const pairs = await page.evaluate(() => {
      const texts = [...document.querySelectorAll('#fig-probe-map text.kl-cell')];
      return texts.map((t) => [t.textContent, getComputedStyle(t).fill,
        getComputedStyle(t.previousElementSibling).fill]);
    });
    assert.ok(pairs.length >= 100, `${pairs.length} cells`);
    for (const [value, text, cell] of pairs) {
      assert.ok(contrast(text, cell) >= 4.5, `${value}: ${text} on ${cell}`);
    }
    await map.screenshot({ path: path.join(shots, `probe-map-${theme}.png`) });
    await context.close();
  });
}

test('the journey is readable on a phone: only logs and tables scroll sideways', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(`${base}/journey`, { waitUntil: 'networkidle' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen`);
  await page.screenshot({ path: path.join(shots, 'journey-phone.png') });
  await context.close();
});

// On a phone a chart keeps its own width and scrolls inside its frame, so that its text is
// not scaled below 10 px: the rendered size is the computed font size times the SVG's scale.
for (const [url, id] of [['/', 'fig-short-version'], ['/journey', 'fig-bringup-stock'],
  ['/journey', 'fig-probe-map'], ['/journey', 'fig-hist-cpu5']]) {
  test(`${url}#${id}: chart labels are at least 10 px on a 390 px phone`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
    const page = await context.newPage();
    await page.goto(`${base}${url}`, { waitUntil: 'networkidle' });
    const chart = page.locator(`#${id} svg.kl-chart:visible`);
    await chart.scrollIntoViewIfNeeded();
    const sizes = await chart.evaluate((svg) => [...svg.querySelectorAll('text')]
      .filter((t) => t.textContent.trim())
      .map((t) => [t.textContent, parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a]));
    assert.ok(sizes.length >= 5, `${sizes.length} labels`);
    const small = sizes.filter(([, px]) => px < 10);
    assert.deepEqual(small, [], 'labels rendered under 10 px');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `the page is ${overflow}px wider than the screen: the chart must fit or scroll in its frame`);
    await chart.screenshot({ path: path.join(shots, `phone-${id}.png`) });
    await context.close();
  });
}

// The pages a tester reads first, on a 390 px phone: the page never scrolls sideways; no
// chart, figure or image is wider than the screen (a bar chart shows its narrow drawing);
// every box that scrolls sideways in its own frame has the line that says so under it; and
// a figure's provenance, a hover title on a desktop, opens when tapped.
for (const url of ['/', '/qemu-lab', '/checklist']) {
  test(`${url} on a 390 px phone: nothing wider than the screen, scroll boxes marked, provenance by tap`, async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await context.newPage();
    await page.goto(`${base}${url}`, { waitUntil: 'networkidle' });
    // Figures off screen are laid out only near the viewport (content-visibility): visit each.
    await page.evaluate(async () => {
      const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
      for (const e of document.querySelectorAll('.kl-figure, pre, img, .table-wrapper')) { e.scrollIntoView(); await frames(); }
      window.scrollTo(0, 0);
      await frames();
    });
    const seen = await page.evaluate(() => {
      const width = window.innerWidth;
      const name = (e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''} in #${e.closest('[id]')?.id}`;
      const wide = [...document.querySelectorAll('svg.kl-chart, figure, img')]
        .filter((e) => e.checkVisibility())
        .map((e) => [name(e), e.getBoundingClientRect()])
        .filter(([, r]) => r.left < -1 || r.right > width + 1)
        .map(([n, r]) => `${n}: ${Math.round(r.left)} to ${Math.round(r.right)} px`);
      const scrolls = (e) => e.scrollWidth > e.clientWidth + 1 && /auto|scroll/.test(getComputedStyle(e).overflowX);
      const boxes = [...document.querySelectorAll('pre, pre > code, .kl-log, .kl-table-wrap, .table-wrapper, .kl-chart-wrap')]
        .filter(scrolls).map((e) => (e.tagName === 'CODE' ? e.parentElement : e));
      const unmarked = boxes.filter((e) => {
        const next = e.nextElementSibling;
        return !(next && next.classList.contains('kl-scroll-hint') && next.checkVisibility());
      }).map(name);
      return { overflow: document.documentElement.scrollWidth - width, wide, boxes: boxes.length, unmarked };
    });
    assert.ok(seen.overflow <= 1, `the page is ${seen.overflow}px wider than the screen`);
    assert.deepEqual(seen.wide, [], 'wider than the screen');
    assert.deepEqual(seen.unmarked, [], `of ${seen.boxes} boxes that scroll sideways, these have no line saying so`);
    // The checklist's long command lines are wider than a phone: the check above is not empty.
    if (url === '/checklist') assert.ok(seen.boxes > 0, 'no box of the checklist scrolls sideways');
    const value = page.locator('.kl-value[title]').first();
    assert.ok(await value.count(), 'the page has a figure with its provenance');
    await value.scrollIntoViewIfNeeded();
    await value.tap();
    const shown = await value.evaluate((e) => {
      const after = getComputedStyle(e, '::after');
      return { focused: document.activeElement === e, content: after.content, position: after.position, title: e.title };
    });
    assert.ok(shown.focused, 'the tapped figure has the focus');
    assert.ok(shown.title && shown.content !== 'none' && shown.position === 'fixed', JSON.stringify(shown));
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `with the provenance open the page is ${overflow}px wider than the screen`);
    await page.screenshot({ path: path.join(shots, `phone${url.replaceAll('/', '-')}-provenance.png`) });
    await context.close();
  });
}

test('the MTRR changes table shows what was rewritten on a phone, and stays a table', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(`${base}/journey`, { waitUntil: 'networkidle' });
  const table = page.locator('#tbl-mtrr-resume-changes table');
  await table.scrollIntoViewIfNeeded();
  // Two frames: the figure's content-visibility lets the browser render it once in view.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const [list, row, key] = await table.evaluate((t) => {
    const box = (e) => { const r = e.getBoundingClientRect(); return { left: r.left, right: r.right, height: r.height }; };
    const first = t.querySelector('tbody tr');
    return [box(first.lastElementChild), box(first), box(first.firstElementChild)];
  });
  // The list of rewritten registers is on screen, as wide as the row, not a narrow column.
  assert.ok(list.left >= 0 && list.right <= 390, `list at ${list.left}-${list.right}`);
  assert.ok(list.right - list.left >= 0.9 * (row.right - row.left), `list ${JSON.stringify(list)}, row ${JSON.stringify(row)}`);
  // The key cells (CPU, line, flags, type) are on screen too, and no taller than a few lines.
  assert.ok(key.left >= 0 && key.height < 100, `key cell ${JSON.stringify(key)}`);
  // Chromium's accessibility tree still has a table of rows and cells.
  const cdp = await context.newCDPSession(page);
  await cdp.send('DOM.enable');
  await cdp.send('Accessibility.enable');
  const role = async (selector) => {
    const { root } = await cdp.send('DOM.getDocument', { depth: 0 });
    const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector });
    const { nodes } = await cdp.send('Accessibility.getPartialAXTree', { nodeId, fetchRelatives: false });
    return nodes[0].role.value;
  };
  assert.equal(await role('#tbl-mtrr-resume-changes table'), 'table');
  assert.equal(await role('#tbl-mtrr-resume-changes tbody tr'), 'row');
  assert.equal(await role('#tbl-mtrr-resume-changes tbody td'), 'cell');
  await table.screenshot({ path: path.join(shots, 'phone-mtrr-changes.png') });
  await context.close();
});

test('the sidebar toggle is a button that opens and closes the sidebar, by mouse and keyboard', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const page = await context.newPage();
  await page.goto(`${base}/journey`, { waitUntil: 'networkidle' });
  const toggle = page.locator('#mdbook-sidebar-toggle');
  const state = () => page.evaluate(() => ({
    tag: document.getElementById('mdbook-sidebar-toggle').tagName,
    expanded: document.getElementById('mdbook-sidebar-toggle').getAttribute('aria-expanded'),
    visible: document.documentElement.classList.contains('sidebar-visible'),
    onunload: window.onunload,
  }));
  assert.deepEqual(await state(), { tag: 'BUTTON', expanded: 'false', visible: false, onunload: null });
  await toggle.click();
  await page.locator('#mdbook-sidebar a[href$="journey.html"]').first().waitFor({ state: 'visible' });
  assert.deepEqual(await state(), { tag: 'BUTTON', expanded: 'true', visible: true, onunload: null });
  await toggle.focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => getComputedStyle(document.getElementById('mdbook-sidebar')).display === 'none');
  assert.deepEqual(await state(), { tag: 'BUTTON', expanded: 'false', visible: false, onunload: null });
  await context.close();
});

test('search finds the journey (the site is built with search, as deployed)', async () => {
  const { page, errors, context } = await open('/related/chen-yu-2017');
  await page.keyboard.press('s');
  await page.locator('#mdbook-searchbar').pressSequentially('rendezvous');
  const results = page.locator('#mdbook-searchresults a');
  await results.first().waitFor({ state: 'visible' });
  const hrefs = await results.evaluateAll((links) => links.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.some((h) => h.replace(/^\.\.\//, '').startsWith('journey.html')), `results: ${hrefs.join(', ')}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the print view includes the charts', async () => {
  const context = await browser.newContext({ viewport: { width: 1000, height: 1400 } });
  const page = await context.newPage();
  await page.emulateMedia({ media: 'print' });
  await page.goto(`${base}/print`, { waitUntil: 'networkidle' });
  const charts = await page.evaluate(() => [...document.querySelectorAll('svg.kl-chart')]
    .filter((svg) => svg.getBoundingClientRect().height > 50).length);
  assert.ok(charts >= 20, `${charts} charts visible in print`);
  await context.close();
});

// The prebuilt kernlog the checklist tells testers to download (added by .ci/static-kernlog
// --site after the book build): the checklist's link resolves on this site to an x86_64 ELF
// file whose SHA-256 is the one in the .sha256 file and the one the page shows.
test('the checklist\'s kernlog download resolves, with its SHA-256 beside it and on the page', async () => {
  const page = await (await fetch(`${base}/checklist`)).text();
  // The address as the page gives it (in its text and its curl commands).
  const link = page.match(/https:\/\/[^"\/\s<]+(\/tools\/kernlog-x86_64-linux)(?![.\w-])/);
  assert.ok(link, 'the checklist names the address /tools/kernlog-x86_64-linux');
  const res = await fetch(`${base}${link[1]}`);
  assert.equal(res.status, 200, link[1]);
  const bytes = Buffer.from(await res.arrayBuffer());
  assert.ok(bytes.length > 100_000 && bytes.length <= 8_000_000, `${bytes.length} bytes`);
  assert.deepEqual([...bytes.subarray(0, 5)], [0x7f, 0x45, 0x4c, 0x46, 2], 'a 64-bit ELF file');
  assert.equal(bytes.readUInt16LE(18), 62, 'e_machine is x86-64');
  const hash = createHash('sha256').update(bytes).digest('hex');
  const sums = await fetch(`${base}${link[1]}.sha256`);
  assert.equal(sums.status, 200, `${link[1]}.sha256`);
  assert.equal(await sums.text(), `${hash}  kernlog-x86_64-linux\n`);
  assert.ok(page.includes(`<code class="kernlog-sha256">${hash}</code>`), 'the page shows the hash');
});

// The checklist's own commands, taken from the served page as a reader copies them: the
// download (curl, pointed at this server instead of the deployed address) and the checks.
// `sudo` is a stand-in that runs the command as this user with /usr/local/bin/ mapped to the
// test's own folder, which is first in PATH. Then the same checks with a .sha256 that names
// another file: the page's first check must stop them.
test('the checklist\'s download and checks, run as the page gives them against the served site', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${base}/checklist`, { waitUntil: 'networkidle' });
  const blocks = await page.locator('pre code').allInnerTexts();
  await context.close();
  const download = blocks.find((b) => b.includes('curl -fLO') && b.includes('kernlog-x86_64-linux.sha256'));
  const checks = blocks.find((b) => b.includes('sha256sum --check --strict'));
  assert.ok(download && checks, 'the checklist has the download block and the checks block');
  const origin = download.match(/https:\/\/[^/\s]+/)[0];
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kernlog-download-'));
  fs.mkdirSync(path.join(home, 'bin'));
  fs.mkdirSync(path.join(home, 'shim'));
  fs.writeFileSync(path.join(home, 'shim/sudo'),
    '#!/bin/sh\nfor a do shift; set -- "$@" "$(printf %s "$a" | sed "s|^/usr/local/bin/|$HOME/bin/|")"; done\nexec "$@"\n',
    { mode: 0o755 });
  const run = (script) => spawnSync('bash', ['-e', '-c', script], {
    encoding: 'utf8',
    env: { ...process.env, HOME: home, PATH: `${home}/shim:${home}/bin:${process.env.PATH}` },
  });
  try {
    const got = run(`${download.replaceAll(origin, base)}\n${checks}`);
    assert.equal(got.status, 0, got.stdout + got.stderr);
    assert.match(got.stdout, /^kernlog-x86_64-linux: OK$/m);
    assert.match(got.stdout, /^kernlog \d+\.\d+\.\d+ \(commit ([0-9a-f]{40}(-modified)?|unknown), rustc /m);
    const sums = path.join(home, 'mtrr-test/kernlog-x86_64-linux.sha256');
    const hash = fs.readFileSync(sums, 'utf8').slice(0, 64);
    fs.writeFileSync(sums, `${createHash('sha256').update('').digest('hex')}  /dev/null\n`);
    const other = run(checks);
    assert.notEqual(other.status, 0, `a .sha256 naming /dev/null passed: ${other.stdout}`);
    assert.doesNotMatch(other.stdout, /OK/);
    fs.writeFileSync(sums, `${hash}  kernlog-x86_64-linux\n${createHash('sha256').update('').digest('hex')}  /dev/null\n`);
    assert.notEqual(run(checks).status, 0, 'a .sha256 with a second line passed');
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
});

// The cover letter as a reader copies it out of its page (the letter selected, as Chromium
// turns a selection into text) is the series' plain-text cover letter up to its list of
// patches: the same words and figures in the same order, no curly quote, no word run into
// the next.
test('the cover letter copied from its page is the series\' plain-text letter', async () => {
  const { page, context } = await open('/cover-letter');
  const copied = await page.evaluate(() => {
    const letter = document.getElementById('letter').nextElementSibling;
    const selection = window.getSelection();
    selection.selectAllChildren(letter);
    return selection.toString();
  });
  await context.close();
  const file = fs.readFileSync(path.join(repo, 'src/patches/0000-cover-letter.patch'), 'utf8');
  const expected = file.slice(0, file.indexOf('\nPatches:\n'));
  // The words, without list bullets: the file wraps its lines by hand, the page by the
  // window, and Chromium ends a copied list with a single line break, not a blank line, so
  // the paragraph breaks do not survive the copy.
  const words = (text) => text.replace(/^\s*- /gm, '').split(/\s+/).filter(Boolean);
  assert.deepEqual(words(copied), words(expected));
});

// What Cloudflare Pages itself does with the site, checked with fetch against its runtime.
test('pages carry the headers of _headers', async () => {
  const res = await fetch(`${base}/journey`);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'self'/, `CSP: ${csp}`);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
});

test('.html addresses redirect to the extension-less ones', async () => {
  const res = await fetch(`${base}/journey.html`, { redirect: 'manual' });
  assert.equal(res.status, 308);
  assert.equal(new URL(res.headers.get('location'), base).pathname, '/journey');
});

test('every old address in _redirects answers with its redirect', async () => {
  const rules = fs.readFileSync(path.join(repo, 'src/_redirects'), 'utf8').split('\n')
    .map((l) => l.trim()).filter((l) => l && !l.startsWith('#')).map((l) => l.split(/\s+/));
  assert.ok(rules.length > 0, 'no rule in src/_redirects');
  for (const [from, to, code] of rules) {
    const res = await fetch(`${base}${from}`, { redirect: 'manual' });
    assert.equal(res.status, Number(code ?? 302), `${from}`);
    assert.equal(new URL(res.headers.get('location'), base).pathname, to, `${from}`);
    const target = await fetch(`${base}${to}`);
    assert.equal(target.status, 200, `${from} -> ${to} leads nowhere`);
  }
});

test('an unknown address gets the 404 page', async () => {
  const res = await fetch(`${base}/no/such/page`);
  assert.equal(res.status, 404);
  const body = await res.text();
  assert.match(body, /Document not found|404/i, 'the 404 page');
  assert.match(body, /MacBook Pro Resume Delay/, 'the notebook\'s own 404 page');
});

test('hashed static files are cached for good, pages are not', async () => {
  const page = await (await fetch(`${base}/journey`)).text();
  const hashed = [...page.matchAll(/(?:src|href)="([^"]+-[0-9a-f]{8}\.(?:js|css))"/g)].map((m) => m[1]);
  assert.ok(hashed.length > 0, 'no hashed asset linked from the journey');
  const asset = new URL(hashed[0], `${base}/journey`);
  const res = await fetch(asset);
  assert.equal(res.status, 200, `${asset}`);
  assert.match(res.headers.get('cache-control') ?? '', /immutable/, `${asset.pathname}`);
  const html = await fetch(`${base}/journey`);
  assert.doesNotMatch(html.headers.get('cache-control') ?? '', /immutable/);
});

// The page "Analyse your own log" (src/analyse.md): kernlog in WebAssembly, added to the site
// by .ci/wasm --site. Its policy forbids every connection and every inline script but the
// theme's; no request leaves once it has loaded; three real logs and a bundle's folder given
// to it show the cycles, bring-up figures, checklist and verdict of the CLI on the same files
// (KERNLOG, default `kernlog` on PATH), with findings linked to sections of the notebook that
// exist; hostile logs and file names stay text.
const kernlogCli = process.env.KERNLOG ?? 'kernlog';

function cli(args) {
  const got = spawnSync(kernlogCli, args, { encoding: 'utf8' });
  assert.ok([0, 1, 3].includes(got.status), `${kernlogCli} ${args.join(' ')}: ${got.stderr}`);
  return got.stdout;
}

async function analysed(page) {
  await page.click('#kl-run');
  await page.waitForFunction(() => /^Done|not analysed/.test(document.getElementById('kl-status').textContent));
  return page.locator('#kl-status').innerText();
}

// What the page shows of one input's section: the cycle count, each shown cycle's CPU
// bring-up rows, the checklist's rows and the findings' links.
function shown(page, index) {
  return page.evaluate((index) => {
    const section = document.querySelectorAll('#kl-results section')[index];
    const cells = (tr) => [...tr.cells].map((td) => td.innerText);
    const facts = Object.fromEntries([...section.querySelectorAll('dt')].map((dt) => [dt.innerText, dt.nextElementSibling.innerText]));
    const bringups = {};
    let cycle = null;
    for (const node of section.querySelectorAll('h3, table')) {
      if (node.tagName === 'H3') cycle = /^Cycle (\d+)$/.exec(node.innerText)?.[1] ?? null;
      else if (cycle && /^CPU bring-up in /.test(node.caption?.textContent ?? '')) {
        bringups[cycle] = [...node.tBodies[0].rows].map(cells).filter((r) => /^CPU\d+$/.test(r[0]));
      }
    }
    const checklist = [...section.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Checklist');
    return {
      title: section.querySelector('h2').innerText,
      facts,
      bringups,
      checklist: [...checklist.tBodies[0].rows].map(cells),
      links: [...section.querySelectorAll('a')].map((a) => a.getAttribute('href')),
    };
  }, index);
}

async function agreesWithCli(file, view) {
  const log = fs.statSync(file).isDirectory() ? path.join(file, 'kernel.log') : file;
  const doc = JSON.parse(cli(['analyze', '--json', log]));
  const n = doc.cycles.length;
  assert.match(view.facts.cycles, new RegExp(`^${n} suspend/resume cycles?, `), `${file}: ${view.facts.cycles}`);
  for (const [cycle, rows] of Object.entries(view.bringups)) {
    const cpus = doc.cycles[cycle - 1].cpus;
    assert.deepEqual(rows.map((r) => r[0]), cpus.map((c) => `CPU${c.cpu}`), `${file} cycle ${cycle}`);
    rows.forEach((r, i) => {
      const ms = cpus[i].bringup_ms;
      const what = `${file} cycle ${cycle} CPU${cpus[i].cpu}: ${r[2]} vs ${ms} ms`;
      if (ms === null) return assert.doesNotMatch(r[2], /\d/, what);
      // As shown: "654.004 ms" or "3.698 s", rounded to the last digit.
      const [, value, unit] = /^(\d+(?:\.(\d+))?) (ms|s)$/.exec(r[2]).filter((_, j) => j !== 2);
      const scale = unit === 's' ? 1000 : 1;
      const digits = (value.split('.')[1] ?? '').length;
      assert.ok(Math.abs(parseFloat(value) * scale - ms) <= 0.5 * 10 ** -digits * scale + 1e-9, what);
    });
  }
  // kernlog check: "[STATUS] item: why (lines ...)" per item, the verdict last.
  const check = cli(['check', file]).trimEnd().split('\n');
  const items = view.checklist.slice(0, -1).map(([item, result, why]) => `[${result}] ${item}: ${why}`);
  assert.deepEqual(items, check.slice(0, -1).map((l) => l.replace(/ \(lines [\d, ]+\)$/, '')), file);
  const [label, overall, verdict] = view.checklist.at(-1);
  assert.deepEqual([label, verdict], ['verdict', check.at(-1)], file);
  assert.ok(check.at(-1).startsWith(overall), `${file}: ${overall}`);
  for (const href of view.links) {
    const url = new URL(href, `${base}/analyse`);
    const target = await (await fetch(`${base}${url.pathname}`)).text();
    assert.ok(target.includes(`id="${url.hash.slice(1)}"`), `${file}: ${href} names a section of the notebook`);
  }
  return doc;
}

test('the analyser page connects nowhere and agrees with kernlog on three real logs and a bundle', async (t) => {
  const res = await fetch(`${base}/analyse`);
  assert.equal(res.status, 200);
  const csp = res.headers.get('content-security-policy') ?? '';
  assert.match(csp, /connect-src 'none'/, `CSP: ${csp}`);
  assert.doesNotMatch(csp, /connect-src 'self'/, 'the site-wide policy is replaced on this page');
  assert.doesNotMatch(/script-src [^;]*/.exec(csp)[0], /unsafe-inline/, 'no inline script but the hashed ones');
  const { page, errors, context } = await open('/analyse');
  const status = page.locator('#kl-status');
  await page.waitForFunction(() => !/Loading/.test(document.getElementById('kl-status').textContent));
  if (!fs.existsSync(path.join(site, 'analyse/kernlab-wasm.js'))) {
    assert.match(await status.innerText(), /no analyzer module/);
    t.skip('the site has no analyse/kernlab-wasm.js (.ci/wasm skipped: no wasm toolchain)');
    await context.close();
    return;
  }
  assert.match(await status.innerText(), /works offline/);
  const after = [];
  page.on('request', (r) => after.push(r.url()));
  // The MacBook Pro on 6.16.7 without the fix (dmesg), Jürgen Groß's series on 6.19-rc8
  // (the fix's diagnostic, a linked finding), and a journal whose times are the logger's.
  const logs = ['data/dmesg/resume-cpu-bringup-6.16.7.log',
    'data/dmesg/resume-cpu-bringup-fix-jgross-series-6.19-rc8.log',
    'preprocessors/kernlog/tests/corpus/cosmic-299-journal-resume-six-cpus.log'];
  let linked = 0;
  for (const log of logs) {
    const file = path.join(repo, log);
    await page.setInputFiles('#kl-files', file);
    assert.match(await analysed(page), /^Done: 1 log analysed/, log);
    const view = await shown(page, 0);
    assert.equal(view.title, path.basename(log));
    const doc = await agreesWithCli(file, view);
    linked += view.links.length;
    assert.equal(view.links.length, doc.findings.length, `${log}: every finding linked`);
  }
  assert.ok(linked > 0, 'some finding of the three logs is linked');
  // A log dropped onto the page (a drop made in the page, as a reader's drag would be).
  await page.setInputFiles('#kl-files', []);
  const dropped = 'dropped.log';
  await page.evaluate(([name, text]) => {
    const transfer = new DataTransfer();
    transfer.items.add(new File([text], name, { type: 'text/plain' }));
    const zone = document.getElementById('kl-drop');
    zone.dispatchEvent(new DragEvent('drop', { dataTransfer: transfer, bubbles: true, cancelable: true }));
  }, [dropped, fs.readFileSync(path.join(repo, logs[0]), 'utf8')]);
  await page.waitForFunction((name) => document.querySelector('#kl-results section h2')?.textContent === name, dropped);
  assert.match(await status.innerText(), /^Done: 1 log analysed/);
  await agreesWithCli(path.join(repo, logs[0]), { ...(await shown(page, 0)), title: dropped });
  // A bundle of a Debian 13 guest's three resumes, given as its folder.
  const bundle = path.join(repo, 'data/debian-guest/distro-boot1');
  await page.setInputFiles('#kl-files', []);
  await page.setInputFiles('#kl-folder', bundle);
  assert.match(await analysed(page), /^Done: 1 bundle analysed/);
  const view = await shown(page, 0);
  assert.equal(view.title, 'distro-boot1');
  await agreesWithCli(bundle, view);
  assert.ok(Object.keys(view.bringups).length > 0, 'the bundle\'s cycles have bring-up charts');
  assert.equal(await page.locator('#kl-results h3:text-is("Captured MTRRs")').count(), 1);
  await page.screenshot({ path: path.join(shots, 'analyse.png'), fullPage: true });
  assert.deepEqual(after, [], 'requests after the page loaded');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the analyser page keeps hostile logs, names and bundles inert', async (t) => {
  if (!fs.existsSync(path.join(site, 'analyse/kernlab-wasm.js'))) {
    t.skip('the site has no analyse/kernlab-wasm.js (.ci/wasm skipped: no wasm toolchain)');
    return;
  }
  const { page, errors, context } = await open('/analyse');
  await page.waitForFunction(() => /works offline/.test(document.getElementById('kl-status').textContent));
  const after = [];
  page.on('request', (r) => after.push(r.url()));
  // A log with markup, a javascript: link, control and bidi characters, pasted, then as a
  // file of a hostile name: shown as text, the name's controls made visible.
  const hostile = [
    '[   10.000000] PM: suspend entry (deep)',
    '[   10.200000] Freezing of tasks failed after 20.002 seconds (1 tasks refusing to freeze, wq_busy=0):',
    '[   10.200100] task:<script>alert(1)</script>\x07\x1b[31m\u202e state:D <img src=x onerror=alert(3)>',
    '[   10.300000] PM: suspend exit',
    '[   20.000000] smpboot: Booting Node 0 Processor 1 APIC 0x2',
    '[   20.100000] CPU1: failed <a href="javascript:alert(2)">x</a>\x07',
  ].join('\n');
  const name = '<img src=x onerror=alert(4)>\x1b[2J\u202egol.txt';
  const inert = () => page.evaluate(() => {
    const results = document.getElementById('kl-results');
    const all = [...results.querySelectorAll('*')];
    const attributes = all.flatMap((e) => [...e.attributes]);
    return {
      elements: [...new Set(all.map((e) => e.localName))].filter((t) => /^(script|img|iframe|object|embed|foreignobject|style|link)$/i.test(t)),
      handlers: attributes.map((a) => a.name).filter((n) => n.startsWith('on') || n === 'src' || n === 'style'),
      links: attributes.filter((a) => a.name === 'href' && !/^\.\/[a-z0-9/-]+#[a-z0-9-]+$/.test(a.value)).map((a) => a.value),
      controls: /[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e]/.test(results.textContent),
      sections: results.querySelectorAll('section').length,
    };
  });
  const clean = { elements: [], handlers: [], links: [], controls: false, sections: 1 };
  await page.fill('#kl-text', hostile);
  assert.match(await analysed(page), /^Done: 1 log analysed/);
  assert.equal(await page.locator('#kl-results section h2').innerText(), 'pasted text');
  assert.deepEqual(await inert(), clean);
  await page.setInputFiles('#kl-files', { name, mimeType: 'text/plain', buffer: Buffer.from(hostile) });
  assert.match(await analysed(page), /^Done: 1 log analysed/);
  assert.equal(await page.locator('#kl-results section h2').innerText(), '<img src=x onerror=alert(4)>\\x1b[2J<U+202E>gol.txt');
  assert.deepEqual(await inert(), clean);
  // A bundle's capture.yaml without its folder, and a folder whose capture.yaml is not
  // kernlog's: the CLI's errors, as text.
  await page.setInputFiles('#kl-files', { name: 'capture.yaml', mimeType: 'text/plain', buffer: Buffer.from('x: 1\n') });
  assert.match(await analysed(page), /not analysed/);
  assert.match(await page.locator('.kl-error').innerText(), /^kernlog: capture\.yaml is the capture\.yaml of a bundle, not a log; drop the bundle's folder/);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kl-bundle-'));
  const folder = path.join(dir, 'b<img src=x onerror=alert(5)>');
  fs.mkdirSync(folder);
  fs.writeFileSync(path.join(folder, 'capture.yaml'), 'format: <script>alert(6)</script>\n');
  fs.writeFileSync(path.join(folder, 'MANIFEST.yaml'), '');
  await page.setInputFiles('#kl-files', []);
  await page.setInputFiles('#kl-folder', folder);
  assert.match(await analysed(page), /not analysed/);
  const refused = await page.locator('.kl-error').innerText();
  assert.match(refused, /^kernlog: b<img src=x onerror=alert\(5\)>\/capture\.yaml: /, refused);
  assert.equal(await page.locator('#kl-results img, #kl-results script').count(), 0);
  fs.rmSync(dir, { recursive: true });
  assert.deepEqual(after, [], 'requests after the page loaded');
  assert.deepEqual(errors, []);
  await context.close();
});
