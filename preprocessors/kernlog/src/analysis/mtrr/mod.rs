//! x86 memory type range registers: decoding MSR values and reading what the kernel
//! prints about them.
//!
//! Decoding ([`decode_deftype`], [`decode_variable`], [`decode_fixed`]) is pure
//! arithmetic on register values. [`MtrrCollector`] reads log messages one at a time and
//! gathers the boot-time `mtrr=debug` tables, `/proc/mtrr` dumps, the per-CPU change lines
//! of the debug patch (`MTRR cpu N ...`), and the kernel's MTRR warnings.

//!
//! One module a job: [`decode`](decode_deftype) (register values), the `/proc/mtrr`
//! parser, the report model, and the collector that reads a log into it.

mod collector;
mod decode;
mod model;
mod proc;

pub use collector::MtrrCollector;
pub use decode::{
    DefType, FIXED_MSRS, FixedMsr, FixedRange, MemType, VariableRange, decode_deftype,
    decode_fixed, decode_variable, fixed_msr_index, fixed_msr_position,
};
pub use model::{
    BitsMismatch, BootTable, MtrrLog, MtrrRun, MtrrWarning, RegisterChange, changed_cpus,
    fixed_differences,
};
pub(crate) use proc::changed_proc_registers;
pub use proc::{ProcMtrrEntry, parse_proc_mtrr_line};

#[cfg(test)]
mod tests;
