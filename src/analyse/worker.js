// The analyzer's worker: loads kernlog's WebAssembly module (kernlab-wasm, see .ci/wasm) and
// runs it on the files the page sends, off the page's thread. Messages to the page:
//   {type: "ready"} | {type: "missing", reason} once loaded;
//   {type: "progress", stage, done, total} while reading and analysing;
//   {type: "result", json} | {type: "error", reason} for each request.
// Nothing here sends anything anywhere: the module comes as a script of this site
// (kernlab-wasm.js, the module's bytes in base64), and the files stay in this worker.
"use strict";

let wasm = null;

function load() {
  try {
    importScripts("kernlab-wasm.js");
  } catch (e) {
    return "this build of the notebook has no analyzer module (analyse/kernlab-wasm.js): "
      + ".ci/wasm adds it where a WebAssembly toolchain exists";
  }
  const text = atob(self.kernlabWasm);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  const imports = {
    env: {
      kl_progress: (done, total) => postMessage({ type: "progress", stage: "analysing", done, total }),
    },
  };
  wasm = new WebAssembly.Instance(new WebAssembly.Module(bytes), imports).exports;
  return null;
}

// Copy bytes into a buffer the module allocates; the module takes it over in kl_add_input.
function put(bytes) {
  const ptr = wasm.kl_alloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

// Why the inputs are too many or too large to be read, or null: the module's caps (at most
// kl_read_cap() bytes of a file, one more than any member of a bundle may hold, so that a
// longer one is still told to be too long), checked before anything is read.
function tooMuch(inputs) {
  const mib = (n) => Math.floor(n / 1048576) + " MiB";
  if (inputs.length > wasm.kl_max_files()) {
    return inputs.length + " files given, more than the " + wasm.kl_max_files()
      + " this page reads at once; drop a bundle's folder or a few logs";
  }
  const total = inputs.reduce((n, input) => n + Math.min(input.size, wasm.kl_read_cap()), 0);
  if (total > wasm.kl_total_cap()) {
    return "the files hold " + mib(total) + " together, more than the " + mib(wasm.kl_total_cap())
      + " this page reads at once; give fewer at a time";
  }
  return null;
}

async function analyse(inputs) {
  wasm.kl_reset();
  const refused = tooMuch(inputs);
  if (refused) return { type: "error", reason: refused };
  const cap = wasm.kl_read_cap();
  const total = inputs.reduce((n, input) => n + Math.min(input.size, cap), 0);
  let done = 0;
  for (const input of inputs) {
    postMessage({ type: "progress", stage: "reading", done, total });
    const bytes = input.file
      ? new Uint8Array(await input.file.slice(0, cap).arrayBuffer())
      : new TextEncoder().encode(input.text);
    const name = new TextEncoder().encode(input.name);
    wasm.kl_add_input(put(name), name.length, put(bytes), bytes.length);
    done += Math.min(input.size, cap);
  }
  const status = wasm.kl_run();
  const out = new Uint8Array(wasm.memory.buffer, wasm.kl_output_ptr(), wasm.kl_output_len());
  const text = new TextDecoder().decode(out);
  wasm.kl_reset();
  return status === 0 ? { type: "result", json: text } : { type: "error", reason: text };
}

let missing;
try {
  missing = load();
} catch (e) {
  missing = "the analyzer module did not load: " + e;
}
postMessage(missing ? { type: "missing", reason: missing } : { type: "ready" });

onmessage = async (event) => {
  if (missing) {
    postMessage({ type: "error", reason: missing });
    return;
  }
  try {
    postMessage(await analyse(event.data.inputs));
  } catch (e) {
    // A trap is a bug of the module (it does not panic on bad input); a fresh worker is needed.
    postMessage({ type: "error", reason: "the analyzer stopped (a bug, please report it): " + e, fatal: true });
  }
};
