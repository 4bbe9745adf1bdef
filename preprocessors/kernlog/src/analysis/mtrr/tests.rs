//! Decoding and collecting on small hand-written inputs.

use super::decode::range_from_addresses;
use super::*;

#[test]
fn deftype() {
    let d = decode_deftype(0xc06);
    assert!(d.enabled && d.fixed_enabled);
    assert_eq!(d.default_type, MemType::WriteBack);
    let d = decode_deftype(0xc00);
    assert_eq!(d.default_type, MemType::Uncachable);
    assert_eq!(
        d.to_string(),
        "0xc00: MTRRs enabled, fixed ranges enabled, default uncachable"
    );
}

#[test]
fn variable_ranges_and_width() {
    let r = decode_variable(0, 0xff80_0005, 0x7f_ff80_0800).unwrap();
    assert_eq!((r.base, r.end), (0xFF80_0000, 0xFFFF_FFFF));
    assert_eq!(r.mem_type, MemType::WriteProtect);
    assert_eq!(r.phys_bits, 39);
    assert_eq!(r.to_string(), "0xFF800000-0xFFFFFFFF write-protect");
    // 36-bit part, 2 GiB write-back at 0.
    let r = range_from_addresses(0, 0, 0xF_8000_0000, MemType::WriteBack).unwrap();
    assert_eq!(
        (r.phys_bits, r.size_bytes, r.end),
        (36, 1 << 31, 0x7FFF_FFFF)
    );
    assert!(decode_variable(4, 0x7000_0006, 0x7f_f800_0000).is_none());
    let holes = range_from_addresses(0, 0, 0xF_0F00_0000, MemType::WriteBack).unwrap();
    assert!(!holes.contiguous);
}

#[test]
fn fixed_ranges() {
    let r = decode_fixed(0, 0x0000_0000_0000_0005).unwrap();
    assert_eq!(r[0].to_string(), "00000-0FFFF write-protect");
    assert_eq!(r[7].to_string(), "70000-7FFFF uncachable");
    let last = decode_fixed(10, 0x0606_0606_0606_0606).unwrap();
    assert_eq!((last[7].start, last[7].end), (0xFF000, 0xFFFFF));
    assert_eq!(fixed_msr_index(2, 3), Some(6));
    assert_eq!(fixed_msr_index(1, 2), None);
    for i in 0..11 {
        let (block, reg) = fixed_msr_position(i).unwrap();
        assert_eq!(fixed_msr_index(block, reg), Some(i));
    }
    assert_eq!(fixed_msr_position(11), None);
    let all: usize = (0..11).map(|i| decode_fixed(i, 0).unwrap().len()).sum();
    assert_eq!(all, 88);
    let diff = fixed_differences([(0, 0x05, 0x0606_0606_0606_0606)]);
    assert_eq!(diff.len(), 2);
    assert_eq!(diff[1].0.start, 0x10000);
    assert_eq!(diff[1].0.end, 0x7FFFF);
    // Two adjacent 4K MSRs with the same change read as one range.
    let diff = fixed_differences([(4, 0, 0x0505_0505_0505_0505), (3, 0, 0x0505_0505_0505_0505)]);
    assert_eq!(diff.len(), 1);
    assert_eq!((diff[0].0.start, diff[0].0.end), (0xC0000, 0xCFFFF));
}

#[test]
fn proc_mtrr_both_orders() {
    let new =
        parse_proc_mtrr_line("reg01: base=0x07c000000 ( 1984MB), size= 64MB, count=1: uncachable")
            .unwrap();
    assert_eq!(
        (new.reg, new.base, new.size_bytes, new.count),
        (1, 0x7c00_0000, 64 << 20, Some(1))
    );
    assert_eq!(new.mem_type, MemType::Uncachable);
    let old =
        parse_proc_mtrr_line("reg00: base=0x00000000 (   0MB), size=2048MB: write-back, count=1")
            .unwrap();
    assert_eq!(
        (old.size_bytes, old.mem_type),
        (2048 << 20, MemType::WriteBack)
    );
    let kb = parse_proc_mtrr_line(
        "reg02: base=0x000a0000 (   0MB), size= 128KB, count=1: write-combining",
    )
    .unwrap();
    assert_eq!(kb.size_bytes, 128 << 10);
    assert!(parse_proc_mtrr_line("reg03: base=0xzz, size=1MB, count=1: write-back").is_none());
    assert!(
        parse_proc_mtrr_line(
            "reg03: base=0x0 (0MB), size=99999999999999999999MB, count=1: write-back"
        )
        .is_none()
    );
    // A range whose end would wrap past 2^64 is no register; the last one that fits is.
    let wraps = "reg04: base=0xfffffffffff00000 (0MB), size=2MB, count=1: write-back";
    assert!(parse_proc_mtrr_line(wraps).is_none());
    let top = "reg04: base=0xfffffffffff00000 (0MB), size=1MB, count=1: write-back";
    assert_eq!(parse_proc_mtrr_line(top).map(|e| e.end()), Some(u64::MAX));
}

#[test]
fn change_lines_make_runs() {
    let mut c = MtrrCollector::new();
    let lines = [
        "MTRR cpu 1 disable: 0000000000000c00 -> 0000000000000000 [bits 0000000000000c00]",
        "MTRR cpu 1 variable 0 00000000ff800005/0000007fff800800 -> 0000000080000000/0000007f80000800 [bits 000000007f800005/000000007f800000]",
        "MTRR cpu 1 fixed 0,0: 0000000000000000 -> 0606060606060606 [bits 0606060606060606]",
        "MTRR cpu 1 changes:VFT",
        "MTRR cpu 1 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c06]",
        "MTRR cpu 2 disable: 0000000000000c06 -> 0000000000000000 [bits 0000000000000c06]",
        "MTRR cpu 2 changes:___",
        "MTRR cpu 2 enable: 0000000000000000 -> 0000000000000c06 [bits 0000000000000c07]",
    ];
    for (i, l) in lines.iter().enumerate() {
        c.push(i as u64 + 1, None, l);
    }
    let report = c.finish();
    assert_eq!(report.runs.len(), 2);
    assert_eq!(report.changed_cpus(), [1]);
    assert_eq!(report.inconsistent_aps(), [1]);
    assert_eq!(report.bits_mismatches, [BitsMismatch { line: 8 }]);
    let words = report.runs[0].describe();
    assert_eq!(
        words,
        [
            "default type: uncachable -> write-back",
            "variable 0: 0xFF800000-0xFFFFFFFF write-protect -> 0x80000000-0xFFFFFFFF uncachable",
            "fixed 0x00000-0x7FFFF: uncachable -> write-back",
        ]
    );
}

#[test]
fn proc_mtrr_pasted_as_a_unified_diff_is_two_dumps() {
    let mut c = MtrrCollector::new();
    let text = "\
--- before
+++ after
@@ -1,3 +1,3 @@
 reg00: base=0x000000000 (    0MB), size= 2048MB, count=1: write-back
-reg01: base=0x080000000 ( 2048MB), size= 1024MB, count=1: write-back
+reg01: base=0x080000000 ( 2048MB), size=  512MB, count=1: write-back
 reg02: base=0x100000000 ( 4096MB), size= 4096MB, count=1: write-back
after the diff";
    for (i, line) in text.lines().enumerate() {
        c.push(i as u64 + 1, None, line);
    }
    let report = c.finish();
    assert_eq!(report.proc_dumps.len(), 2, "{:?}", report.proc_dumps);
    let (old, new) = (&report.proc_dumps[0], &report.proc_dumps[1]);
    assert_eq!(old.len(), 3);
    assert_eq!(new.len(), 3);
    assert_eq!(old[1].size_bytes, 1024 << 20);
    assert_eq!(new[1].size_bytes, 512 << 20);
    assert_eq!(changed_proc_registers(old, new), vec![1]);
}

#[test]
fn runs_of_endless_cpus_are_bounded_and_counted() {
    use crate::analysis::limits::MTRR_ITEMS_KEPT;
    let mut c = MtrrCollector::new();
    let extra = 3;
    for cpu in 0..(MTRR_ITEMS_KEPT + extra) as u64 {
        c.push(cpu + 1, None, &format!("MTRR cpu {cpu} changes:V__"));
    }
    let report = c.finish();
    assert_eq!(report.runs.len(), MTRR_ITEMS_KEPT);
    assert_eq!(report.not_kept, extra as u64);
    assert_eq!(report.runs_by_cpu().len(), MTRR_ITEMS_KEPT);
}
