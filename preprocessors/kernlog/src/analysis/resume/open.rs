//! The cycle being read: what the tracker has seen of it so far, before `finish` turns it
//! into a [`Cycle`].

use std::collections::{HashMap, HashSet};

use super::model::*;
use crate::analysis::limits::CPUS_KEPT;
use crate::parse::reader::Record;

#[derive(Debug)]
pub(super) struct Open {
    pub(super) cycle: Cycle,
    /// The newest-wording entry was seen: wait for `PM: suspend exit`.
    pub(super) new_wording: bool,
    /// `Restarting tasks ... done.` ended the cycle the older way; a `PM: suspend exit`
    /// right after it still belongs to it (kernels print both when the entry is not shown).
    pub(super) thawed_old_style: bool,
    pub(super) resumed: bool,
    /// Gaps up to the last marker, and gaps after it (dropped if no marker follows).
    pub(super) gaps: Vec<Gap>,
    pub(super) pending_gaps: Vec<Gap>,
    pub(super) freeze_start: Option<Event>,
    pub(super) freeze_end: Option<Event>,
    pub(super) platform_sleep: Option<Event>,
    pub(super) disable_start: Option<Event>,
    pub(super) last_offline: Option<Event>,
    pub(super) ec_event: Option<Event>,
    pub(super) thaw_start: Option<Event>,
    pub(super) thaw_done: Option<Event>,
    /// Lines before the resume that tell why an attempt may abort (at most
    /// the tracker's `ABORT_DETAILS_KEPT`).
    pub(super) abort_details: Vec<AbortDetail>,
    /// Where each CPU's bring-up is in `cycle.cpus`, and the CPUs in `cycle.offlined`: one
    /// lookup per line, however many CPUs the log names.
    pub(super) cpu_index: HashMap<u32, usize>,
    pub(super) offlined: HashSet<u32>,
    /// `Restarting tasks ...` was printed without its `done.`.
    pub(super) split_thaw: bool,
    pub(super) noirq_suspended: Option<Event>,
    pub(super) image_created: Option<Event>,
    /// Android's wall times of the entry and the exit, with the lines that print them.
    pub(super) wall_entry: Option<(Event, f64)>,
    pub(super) wall_exit: Option<(Event, f64)>,
}

impl Open {
    pub(super) fn new(boot: usize, first: &Record) -> Self {
        Open {
            cycle: Cycle {
                boot,
                first_line: first.line,
                first_seq: first.seq,
                last_line: first.line,
                ..Cycle::default()
            },
            new_wording: false,
            thawed_old_style: false,
            resumed: false,
            gaps: Vec::new(),
            pending_gaps: Vec::new(),
            freeze_start: None,
            freeze_end: None,
            platform_sleep: None,
            disable_start: None,
            last_offline: None,
            ec_event: None,
            thaw_start: None,
            thaw_done: None,
            abort_details: Vec::new(),
            cpu_index: HashMap::new(),
            offlined: HashSet::new(),
            split_thaw: false,
            noirq_suspended: None,
            image_created: None,
            wall_entry: None,
            wall_exit: None,
        }
    }
}

impl Open {
    /// The bring-up of `cpu`, added if new; `None` once [`CPUS_KEPT`] CPUs are kept.
    pub(super) fn cpu(&mut self, cpu: u32) -> Option<&mut CpuBringup> {
        let cpus = &mut self.cycle.cpus;
        let index = match self.cpu_index.get(&cpu) {
            Some(&index) => index,
            None if cpus.len() < CPUS_KEPT => {
                self.cpu_index.insert(cpu, cpus.len());
                cpus.push(CpuBringup {
                    cpu,
                    apic: None,
                    booting: None,
                    up: None,
                });
                cpus.len() - 1
            }
            None => return None,
        };
        cpus.get_mut(index)
    }
}
