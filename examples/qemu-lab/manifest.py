#!/usr/bin/env python3
"""Write the QEMU lab's entries of data/MANIFEST.yaml (called by `run --update`).

Usage: manifest.py MANIFEST KEY=VALUE...   (package, release, qemu, busybox, config_hash,
cycles, date). Every entry whose path starts with qemu-lab/ is replaced; the rest of the
file is kept byte for byte.
"""

import json
import pathlib
import sys

RUNS = {
    "without-fix-unchanged": ("without the fix", "as SeaBIOS leaves them"),
    "without-fix-changed": ("without the fix", "changed by the test-only patch on every resume"),
    "with-fix-unchanged": ("with the fix", "as SeaBIOS leaves them"),
    "with-fix-changed": ("with the fix", "changed by the test-only patch on every resume"),
}


def q(text):
    return json.dumps(text)  # a JSON string is a valid YAML scalar


def main():
    manifest = pathlib.Path(sys.argv[1])
    v = dict(arg.split("=", 1) for arg in sys.argv[2:])
    data = manifest.parent
    cycles = v["cycles"]
    notes = [
        f"kernel source: Debian {v['package']}; configuration: make tinyconfig merged with "
        f"examples/qemu-lab/lab.config (sha256 {v['config_hash']}...)",
        f"{v['qemu']}, SeaBIOS; initramfs of busybox-static {v['busybox']} with examples/qemu-lab/init",
        f"made on {v['date']}; CI reruns the lab and compares verdicts.yaml, not these logs",
    ]
    entries = []
    for name, (kernel, firmware) in RUNS.items():
        path = f"qemu-lab/{name}.log"
        lines = len((data / path).read_text(encoding="utf-8", errors="replace").splitlines())
        clobber = " qemulab_clobber_mtrr" if name.endswith("-changed") else ""
        entries.append(
            [
                f"- path: {path}",
                "  source: examples/qemu-lab/run --update",
                "  source_location: serial console of the guest",
                "  section: QEMU lab",
                f"  kernel: {v['release']}",
                "  kernel_evidence: stated (include/config/kernel.release of the build)",
                "  kind: dmesg",
                "  command: "
                + q(
                    "qemu-system-x86_64 -accel tcg -machine pc -smp 4 -m 256 -append 'console=ttyS0 "
                    f"no_console_suspend mtrr=debug printk.devkmsg=on labcycles={cycles}{clobber}'"
                ),
                "  follows: "
                + q(f"the kernel {kernel} (with the debug and test-only patches); the boot CPU's MTRRs {firmware}"),
                "  description: "
                + q(f"Boot, {cycles} suspend/resume cycles and power-off of the QEMU lab guest, {kernel}; MTRRs {firmware}."),
                "  elisions: []",
                "  notes:",
                *[f"  - {q(n)}" for n in notes],
                f"  records: {lines}",
                f"  lines: {lines}",
            ]
        )
    entries.append(
        [
            "- path: qemu-lab/verdicts.yaml",
            "  source: examples/qemu-lab/run --update",
            "  source_location: written by examples/qemu-lab/judge.py",
            "  section: QEMU lab",
            f"  kernel: {v['release']}",
            "  kernel_evidence: stated (include/config/kernel.release of the build)",
            "  kind: table",
            "  command: examples/qemu-lab/run --update",
            "  follows: the four runs above",
            "  description: "
            + q("The verdicts of the four runs: kernlog check, MTRR updates per resume, every CPU's MTRRs against boot."),
            "  elisions: []",
            "  notes:",
            *[f"  - {q(n)}" for n in notes],
            "  records: 4",
            f"  lines: {len((data / 'qemu-lab/verdicts.yaml').read_text().splitlines())}",
        ]
    )
    text = manifest.read_text(encoding="utf-8")
    head, *blocks = text.split("\n- path: ")
    kept = [b for b in blocks if not b.startswith("qemu-lab/")]
    out = "\n- path: ".join([head, *kept]).rstrip("\n") + "\n"
    out += "".join("\n".join(e) + "\n" for e in entries)
    manifest.write_text(out, encoding="utf-8")


if __name__ == "__main__":
    main()
