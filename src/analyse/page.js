// The page "Analyse your own log": hands pasted text or dropped files to the analyzer's
// worker (analyse/worker.js, kernlog compiled to WebAssembly) and shows what it returns.
// Every text from the log is put in the page with textContent, never as HTML. The
// analysis is the worker's; this file only reads input and lays out the result.
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

  function el(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function ms(value) {
    return value === null || value === undefined ? "–" : value.toFixed(3) + " ms";
  }

  function outcome(cycle) {
    if (cycle.aborted) return "aborted (" + cycle.aborted.cause + ")";
    if (cycle.cpus_not_up.length) return "CPUs not up: " + cycle.cpus_not_up.join(", ");
    if (cycle.cpus.length || cycle.enable_phase_ms !== null) return "resumed";
    return "no CPU bring-up in the log";
  }

  function table(caption, heads, rows) {
    const t = el("table");
    t.appendChild(el("caption", caption));
    const head = t.createTHead().insertRow();
    for (const h of heads) {
      const th = el("th", h);
      th.scope = "col";
      head.appendChild(th);
    }
    const body = t.createTBody();
    for (const row of rows) {
      const tr = body.insertRow();
      for (const cell of row) tr.insertCell().textContent = cell;
    }
    return t;
  }

  function showReport(report) {
    const doc = report.document;
    const section = el("section", null, "kl-report");
    section.appendChild(el("h2", report.name));
    const input = doc.input;
    section.appendChild(el("p", input.records + " records, read as " + input.format + "; "
      + doc.cycles.length + " suspend/resume cycle" + (doc.cycles.length === 1 ? "" : "s") + "."));
    const list = report.checklist;
    const verdict = el("p", null, "kl-verdict kl-" + list.overall.toLowerCase());
    verdict.appendChild(el("strong", "Verdict of kernlog check: "));
    verdict.appendChild(document.createTextNode(list.verdict));
    section.appendChild(verdict);
    section.appendChild(table("The checklist", ["Item", "Result", "Why", "Lines"],
      list.items.map((i) => [i.name, i.status, i.reason, i.lines.slice(0, 8).join(", ")])));
    if (doc.cycles.length) {
      section.appendChild(table("Cycles", ["Cycle", "Mode", "Outcome", "Suspend", "Resume",
        "Bring-up phase", "CPUs up", "Slowest CPU"], doc.cycles.map((c) => {
        const timed = c.cpus.filter((cpu) => cpu.bringup_ms !== null);
        const slowest = timed.reduce((a, b) => (b.bringup_ms > a.bringup_ms ? b : a), timed[0]);
        return [c.index + 1, c.mode || "–", outcome(c), ms(c.suspend_ms), ms(c.resume_ms),
          ms(c.enable_phase_ms), c.cpus.length,
          slowest ? "CPU" + slowest.cpu + ", " + ms(slowest.bringup_ms) : "–"];
      })));
      doc.cycles.forEach((c) => {
        if (!c.cpus.length) return;
        section.appendChild(table("Bring-up of cycle " + (c.index + 1),
          ["CPU", "APIC", "Bring-up", "Up after the phase began", "Log lines"],
          c.cpus.map((cpu) => ["CPU" + cpu.cpu, cpu.apic || "–", ms(cpu.bringup_ms),
            ms(cpu.up_after_enable_ms), [cpu.booting_line, cpu.up_line].filter((l) => l).join("–")])));
      });
    }
    if (doc.findings.length) {
      section.appendChild(el("h3", "Findings"));
      const ul = el("ul");
      for (const f of doc.findings) ul.appendChild(el("li", f.summary));
      section.appendChild(ul);
    }
    out.appendChild(section);
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
        const reports = JSON.parse(m.json).reports;
        out.replaceChildren();
        reports.forEach(showReport);
        say("Done: " + reports.length + " log" + (reports.length === 1 ? "" : "s") + " analysed.");
      } else if (m.type === "error") {
        busy = false;
        run.disabled = false;
        out.replaceChildren(el("p", "kernlog: " + m.reason, "kl-error"));
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
    worker.postMessage({ inputs });
  }

  function fromFiles(files) {
    return Array.from(files).map((file) => ({ name: file.name, size: file.size, file }));
  }

  run.addEventListener("click", () => {
    const text = $("kl-text").value;
    const files = $("kl-files").files;
    if (files.length) {
      analyse(fromFiles(files));
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
    analyse(fromFiles(event.dataTransfer.files));
  });
  say("Loading the analyzer…");
  startWorker();
})();
