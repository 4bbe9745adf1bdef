#!/usr/bin/env python3
"""Write the QEMU lab's entries of data/MANIFEST.yaml (called by `run --update`).

Usage: manifest.py MANIFEST KEY=VALUE...   (package, release, qemu, busybox, ovmf,
config_hash, cycles, cpus, date). The entries of the lab's runs, verdicts and timings are
replaced and those of lab logs that no longer exist dropped; the rest of the file (the v1
comparison's entry among it) is kept byte for byte.
"""

import json
import pathlib
import sys

KERNELS = {
    "without-fix": "without the fix",
    "with-fix": "with v3 of the fix",
    "leaky-fix": "with v3 of the fix and the test-only leak on top",
}
CASES = {
    "seabios": ("SeaBIOS", "", "as SeaBIOS leaves them: every AP reset, the boot CPU kept"),
    "ovmf": ("OVMF", "", "as OVMF leaves them: every AP reset, a variable range of the boot CPU cleared"),
    "clobber": ("SeaBIOS", " qemulab_clobber_mtrr", "the boot CPU's rewritten by the test-only patch (MacBook-like), every AP reset"),
    "good": ("SeaBIOS", " qemulab_restore_aps", "restored on every CPU by the test-only patch (a well-behaved firmware)"),
    "mixed": ("SeaBIOS", " qemulab_clobber_mtrr qemulab_restore_aps=even", "the boot CPU's rewritten by the test-only patch, the even-numbered APs restored by it, the odd-numbered ones reset (some APs changed, not all, as on the MacBook)"),
    "stale": ("SeaBIOS", " labscenario=stale qemulab_clobber_mtrr", "the boot CPU's rewritten by the test-only patch, every AP reset; first a suspend with every AP offline and one aborted at pm_test=core"),
    "good-stale": ("SeaBIOS", " labscenario=hotplug-abort qemulab_restore_aps", "restored on every CPU by the test-only patch once it has recorded them; first the APs offline and back, and an attempt aborted at pm_test=core"),
    "guest": ("SeaBIOS", "", "as SeaBIOS leaves them, with the hypervisor CPUID bit set (the fix's old path)"),
    "hotplug": ("SeaBIOS", " labscenario=hotplug", "as SeaBIOS leaves them; first every AP put online by hand, in order, three times; no debug printing (a timing run)"),
    "hibernate": ("SeaBIOS", " labscenario=hibernate pm_debug_messages", "as the next boot leaves them when it restores the hibernation image: every AP reset by QEMU's INIT, the boot CPU as that boot set it up"),
}


def q(text):
    return json.dumps(text)  # a JSON string is a valid YAML scalar


def main():
    manifest = pathlib.Path(sys.argv[1])
    v = dict(arg.split("=", 1) for arg in sys.argv[2:])
    data = manifest.parent
    cycles, cpus = v["cycles"], v["cpus"]
    notes = [
        f"kernel source: Debian {v['package']}; configuration: make tinyconfig merged with "
        f"examples/qemu-lab/lab.config (sha256 {v['config_hash']}...), by src/patches/build-kernel.sh --fragment; "
        "the kernel with the fix made on the same tree by build-kernel.sh --config (that build's configuration) "
        "--target bindeb-pkg and booted from its linux-image package, the leaky variant by one more build on top",
        f"{v['qemu']}, SeaBIOS or OVMF {v['ovmf']}; initramfs of busybox-static {v['busybox']} with examples/qemu-lab/init",
        f"made on {v['date']}; CI reruns the lab and compares verdicts.yaml, not these logs",
    ]
    entries = []
    bundles = sorted(p.name for p in (data / "qemu-lab").iterdir() if (p / "capture.yaml").is_file())
    for name in bundles:
        kernel_key = next((k for k in KERNELS if name.startswith(k + "-")), None)
        case_key = name[len(kernel_key) + 1 :] if kernel_key else None
        if case_key not in CASES:
            continue
        kernel = KERNELS[kernel_key]
        bios, extra, firmware = CASES[case_key]
        path = f"qemu-lab/{name}/kernel.log"
        lines = len((data / path).read_text(encoding="utf-8", errors="replace").splitlines())
        bios_arg = " -bios /usr/share/ovmf/OVMF.fd" if bios == "OVMF" else ""
        cpu = "qemu64,hypervisor=on" if case_key == "guest" else "qemu64,hypervisor=off"
        debugging = "" if case_key == "hotplug" else " mtrr=debug stop_machine_debug=1"
        hibernate = case_key == "hibernate"
        disk = " -drive file=SWAP,format=raw,if=virtio (a 256 MiB swap disk), once per cycle and once more" if hibernate else ""
        sleep = "--hibernate" if hibernate else "--mem-sleep deep"
        cycles_are = "hibernation/restore cycles" if hibernate else "suspend/resume cycles"
        entries.append(
            [
                f"- path: {path}",
                "  source: examples/qemu-lab/run --update",
                "  source_location: /dev/kmsg in the guest, recorded by kernlog capture --method sysfs (the bundle's kernel.log; capture.yaml, mtrr/*.txt and its own MANIFEST.yaml beside it)",
                "  section: QEMU lab",
                f"  kernel: {v['release']}",
                "  kernel_evidence: stated (include/config/kernel.release of the build)",
                "  kind: kmsg",
                "  command: "
                + q(
                    f"qemu-system-x86_64 -accel tcg -machine pc -cpu {cpu} -smp {cpus} -m 256{bios_arg} -append 'console=ttyS0 "
                    f"no_console_suspend loglevel=4 log_buf_len=4M{debugging} printk.devkmsg=on labcycles={cycles}{extra}'{disk}; "
                    f"in the guest: kernlog capture --method sysfs {sleep} --cycles {cycles}"
                ),
                "  follows: "
                + q(f"the kernel {kernel} (with the debug and test-only patches) under {bios}; MTRRs {firmware}"),
                "  description: "
                + q(f"Boot, {cycles} {cycles_are} and power-off of the QEMU lab guest, {kernel}; MTRRs {firmware}."),
                "  elisions: []",
                "  notes:",
                *[f"  - {q(n)}" for n in notes],
                f"  records: {lines}",
                f"  lines: {lines}",
            ]
        )
    runs = len(entries)

    def made_by_the_run(path, kind, location, description, records):
        return [
            f"- path: {path}",
            "  source: examples/qemu-lab/run --update",
            f"  source_location: {location}",
            "  section: QEMU lab",
            f"  kernel: {v['release']}",
            "  kernel_evidence: stated (include/config/kernel.release of the build)",
            f"  kind: {kind}",
            "  command: examples/qemu-lab/run --update",
            "  follows: the runs above",
            "  description: " + q(description),
            "  elisions: []",
            "  notes:",
            *[f"  - {q(n)}" for n in notes],
            f"  records: {records}",
            f"  lines: {len((data / path).read_text().splitlines())}",
        ]

    entries.append(made_by_the_run(
        "qemu-lab/verdicts.yaml", "table", "written by examples/qemu-lab/judge.py",
        "The verdicts of every run: kernlog check, MTRR writes, passes and rendezvous per resume, "
        "the APs restored early, every CPU's MTRRs against boot.", runs))
    entries.append(made_by_the_run(
        "qemu-lab/timings.yaml", "table", "written by examples/qemu-lab/timings.py from kernlog analyze and the runs' kernel logs",
        "The bring-up phase, the whole thaw and the MTRR rendezvous of every resume of every run, "
        "with the medians per case and v3's over the unpatched kernel's, in emulator time "
        "(QEMU TCG on a shared 2-core machine), not hardware time.", runs))
    for case in ("seabios", "ovmf"):
        path = f"qemu-lab/report-{case}.txt"
        if (data / path).exists():
            entries.append(made_by_the_run(
                path, "report", f"kernlog report without-fix-{case} with-fix-{case}",
                f"kernlog report on the {case} bundles, the kernel without the fix against v3, "
                "as a tester would send it (emulator time).", 1))
    text = manifest.read_text(encoding="utf-8")
    head, *blocks = text.split("\n- path: ")
    ours = {e[0][len("- path: "):] for e in entries}
    kept = [b for b in blocks if b.split("\n", 1)[0] not in ours and (data / b.split("\n", 1)[0]).exists()]
    out = "\n- path: ".join([head, *kept]).rstrip("\n") + "\n"
    out += "".join("\n".join(e) + "\n" for e in entries)
    manifest.write_text(out, encoding="utf-8")


if __name__ == "__main__":
    main()
