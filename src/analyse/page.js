// The page "Analyse your own log": hands pasted text, dropped files or a bundle's folder to
// the analyzer's worker (analyse/worker.js, kernlog compiled to WebAssembly) and puts the
// views it returns in the page. The views are kernlog's own HTML (kernlab-views, the HTML
// of `kernlog report --html`), every text of the log escaped there; this file checks them
// against the elements and attributes the views use before they join the page, and puts
// every text of its own with textContent.
(function () {
  "use strict";
  const root = document.getElementById("kl-analyse");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const status = $("kl-status");
  const bar = $("kl-progress");
  const out = $("kl-results");
  const run = $("kl-run");
  // Only the chapter's own page has the policy that lets nothing leave (src/_headers); the
  // print view and any other page that includes the chapter link to it instead.
  if (!/\/analyse(\.html)?$/.test(location.pathname)) {
    root.hidden = true;
    return;
  }
  root.hidden = false;

  let worker = null;
  let ready = false;
  let busy = false;

  function say(text) {
    status.textContent = text;
  }

  function error(text) {
    const p = document.createElement("p");
    p.className = "kl-error";
    p.textContent = text;
    out.replaceChildren(p);
  }

  // What the views are made of (kernlab-views' templates): anything else is a bug of the
  // module, and nothing of it joins the page.
  const ELEMENTS = new Set(["a", "caption", "dd", "desc", "details", "div", "dl", "dt", "h2",
    "h3", "line", "p", "pre", "rect", "section", "summary", "svg", "table", "tbody", "td",
    "text", "th", "thead", "title", "tr"]);
  const ATTRIBUTES = new Set(["aria-labelledby", "class", "height", "href", "id", "role",
    "scope", "text-anchor", "viewBox", "width", "x", "x1", "x2", "xmlns", "y", "y1", "y2"]);
  // The findings' links: a section of this notebook, relative to this page.
  const HREF = /^\.\/[a-z0-9/-]+#[a-z0-9-]+$/;

  function unexpected(fragment) {
    for (const node of fragment.querySelectorAll("*")) {
      if (!ELEMENTS.has(node.localName)) return "element " + node.localName;
      for (const a of node.attributes) {
        if (!ATTRIBUTES.has(a.name)) return "attribute " + a.name;
        if (a.name === "href" && !HREF.test(a.value)) return "link " + a.value;
      }
    }
    return null;
  }

  function show(html) {
    // An inert document: nothing in it runs or loads while it is checked.
    const parsed = new DOMParser().parseFromString("<body>" + html + "</body>", "text/html");
    const body = parsed.body;
    const wrong = unexpected(body);
    if (wrong) {
      error("kernlog: the views hold an unexpected " + wrong + ", so they are not shown "
        + "(a bug, please report it)");
      return false;
    }
    const results = document.createElement("div");
    results.className = "kl-report";
    results.append(...Array.from(body.childNodes, (n) => document.adoptNode(n)));
    out.replaceChildren(results);
    return true;
  }

  function counted(reports) {
    const n = (count, what) => count + " " + what + (count === 1 ? "" : "s");
    const bundles = reports.filter((r) => r.bundle).length;
    const logs = reports.length - bundles;
    return [logs ? n(logs, "log") : "", bundles ? n(bundles, "bundle") : ""]
      .filter((s) => s).join(" and ");
  }

  function startWorker() {
    ready = false;
    worker = new Worker("analyse/worker.js");
    worker.onmessage = (event) => {
      const m = event.data;
      if (m.type === "ready") {
        ready = true;
        run.disabled = false;
        say("The analyzer is loaded: it runs in this tab, and works offline from now on.");
      } else if (m.type === "missing") {
        say(m.reason);
      } else if (m.type === "progress") {
        bar.max = Math.max(m.total, 1);
        bar.value = m.done;
        const mib = (n) => (n / 1048576).toFixed(1);
        say(m.stage + ": " + mib(m.done) + " of " + mib(m.total) + " MiB");
      } else if (m.type === "result") {
        busy = false;
        run.disabled = false;
        bar.value = bar.max;
        const result = JSON.parse(m.json);
        if (show(result.html)) say("Done: " + counted(result.reports) + " analysed.");
        else say("The input was not analysed.");
      } else if (m.type === "error") {
        busy = false;
        run.disabled = false;
        error("kernlog: " + m.reason);
        say("The input was not analysed.");
        if (m.fatal) {
          worker.terminate();
          startWorker();
        }
      }
    };
  }

  function analyse(inputs) {
    if (!ready || busy) return;
    busy = true;
    run.disabled = true;
    out.replaceChildren();
    say("Reading " + inputs.length + " file" + (inputs.length === 1 ? "" : "s") + "…");
    worker.postMessage({ inputs });
  }

  // A file with the folders above it inside what was chosen or dropped, as the module
  // tells a bundle's members by their paths.
  function fromFile(file, name) {
    return { name: name || file.webkitRelativePath || file.name, size: file.size, file };
  }

  // Every file below a dropped entry, a folder's in the order its reader gives them.
  async function walk(entry, into) {
    if (entry.isFile) {
      const file = await new Promise((resolve, reject) => entry.file(resolve, reject));
      into.push(fromFile(file, entry.fullPath.replace(/^\//, "")));
      return;
    }
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
      if (!batch.length) return;
      for (const child of batch) await walk(child, into);
    }
  }

  run.addEventListener("click", () => {
    const text = $("kl-text").value;
    const files = [...$("kl-files").files, ...$("kl-folder").files];
    if (files.length) {
      analyse(files.map((f) => fromFile(f)));
    } else {
      analyse(text.trim() ? [{ name: "pasted text", size: text.length, text }] : []);
    }
  });
  const drop = $("kl-drop");
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("kl-over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("kl-over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("kl-over");
    // The entries are had now: the drop's items are gone once this handler returns.
    const items = Array.from(event.dataTransfer.items);
    const entries = items.map((i) => i.webkitGetAsEntry && i.webkitGetAsEntry());
    if (!entries.length || entries.some((e) => !e)) {
      analyse(Array.from(event.dataTransfer.files, (f) => fromFile(f)));
      return;
    }
    const inputs = [];
    (async () => { for (const entry of entries) await walk(entry, inputs); })()
      .then(() => analyse(inputs))
      .catch((e) => error("kernlog: cannot read what was dropped: " + e));
  });
  say("Loading the analyzer…");
  startWorker();
})();
