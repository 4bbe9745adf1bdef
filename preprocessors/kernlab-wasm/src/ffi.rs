//! The module's interface to JavaScript (`src/analyse/worker.js`): plain `extern "C"`
//! functions over the module's memory, no generated glue.
//!
//! 1. `kl_alloc(len)` for each file's name and bytes, which the caller copies in;
//! 2. `kl_add_input(name, name_len, bytes, bytes_len)` hands both buffers to the module;
//! 3. `kl_run()` analyses every input given so far, calling the imported
//!    `env.kl_progress(done, total)` as it reads, and returns 0 (the reports, as JSON) or
//!    1 (the reason the input is bad, as text); `kl_output_ptr`/`kl_output_len` locate it;
//! 4. `kl_reset()` forgets inputs and output.
//!
//! `kl_read_cap`, `kl_total_cap` and `kl_max_files` tell the caller how much to read: at
//! most that many bytes of one file, of all files, and that many files.

use std::cell::RefCell;

use crate::{Input, MAX_FILES, READ_CAP, TOTAL_CAP, analyze_inputs};

unsafe extern "C" {
    /// Told how many bytes of all inputs were read, of how many.
    fn kl_progress(done: f64, total: f64);
}

#[derive(Default)]
struct State {
    inputs: Vec<Input>,
    output: Vec<u8>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// A buffer of `len` bytes for the caller to fill; handed back by `kl_add_input`.
#[unsafe(no_mangle)]
pub extern "C" fn kl_alloc(len: usize) -> *mut u8 {
    Box::into_raw(vec![0u8; len].into_boxed_slice()).cast()
}

/// Take two buffers of `kl_alloc` (exactly as allocated) as one input: its name in UTF-8
/// and its bytes.
///
/// # Safety
/// Each pointer and length must be one `kl_alloc` result and its length, not used again.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kl_add_input(
    name: *mut u8,
    name_len: usize,
    bytes: *mut u8,
    bytes_len: usize,
) {
    // SAFETY: the caller passes buffers of kl_alloc with their lengths, once each.
    let (name, bytes) = unsafe { (take(name, name_len), take(bytes, bytes_len)) };
    let name = String::from_utf8_lossy(&name).into_owned();
    STATE.with_borrow_mut(|s| s.inputs.push(Input { name, bytes }));
}

/// # Safety
/// `ptr` and `len` are one `kl_alloc` result and its length.
unsafe fn take(ptr: *mut u8, len: usize) -> Vec<u8> {
    // SAFETY: as the caller promises, a boxed slice of this length leaked by kl_alloc.
    unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)) }.into_vec()
}

/// Analyse the inputs given so far, with `kernlog check`'s default limits: 0 when the
/// output holds the reports, 1 when it holds the reason the input is bad.
#[unsafe(no_mangle)]
pub extern "C" fn kl_run() -> u32 {
    let inputs = STATE.with_borrow_mut(|s| std::mem::take(&mut s.inputs));
    let mut progress = |done: u64, total: u64| {
        // SAFETY: an imported function of plain numbers; the loader provides it.
        unsafe { kl_progress(done as f64, total as f64) }
    };
    let (status, text) = match analyze_inputs(inputs, &mut progress) {
        Ok(json) => (0, json),
        Err(reason) => (1, reason),
    };
    STATE.with_borrow_mut(|s| s.output = text.into_bytes());
    status
}

/// Where the output of the last `kl_run` starts.
#[unsafe(no_mangle)]
pub extern "C" fn kl_output_ptr() -> *const u8 {
    STATE.with_borrow(|s| s.output.as_ptr())
}

/// The length of the output of the last `kl_run`, in bytes.
#[unsafe(no_mangle)]
pub extern "C" fn kl_output_len() -> usize {
    STATE.with_borrow(|s| s.output.len())
}

/// Forget every input and the output.
#[unsafe(no_mangle)]
pub extern "C" fn kl_reset() {
    STATE.with_borrow_mut(|s| *s = State::default());
}

/// The most bytes to read of one file ([`READ_CAP`]).
#[unsafe(no_mangle)]
pub extern "C" fn kl_read_cap() -> f64 {
    READ_CAP as f64
}

/// The most bytes to read of all files together ([`TOTAL_CAP`]).
#[unsafe(no_mangle)]
pub extern "C" fn kl_total_cap() -> f64 {
    TOTAL_CAP as f64
}

/// The most files to give at once ([`MAX_FILES`]).
#[unsafe(no_mangle)]
pub extern "C" fn kl_max_files() -> u32 {
    MAX_FILES as u32
}
