#!/usr/bin/env python3
"""Write the QEMU lab's timings.yaml: how long each resume's CPU bring-up took, in emulator
time, and what that says (or does not) about the fix.

Usage: timings.py OUT ACCEL LOAD FIX RUN...   each RUN is KERNEL/CASE=BUNDLE_DIR

The log is cut into suspend attempts the way judge.py cuts it. Each run records the kernel
release and the number of CPUs its log names. For every attempt that resumed (a hibernation:
whose image was restored): the bring-up phase (from "Enabling non-boot CPUs" to the last
"CPUn is up", null if no CPU came up), the thaw (to the line that ends it, the platform's
"Waking up" or a hibernation's "hibernation exit", so the final rendezvous is in it), each AP's own step (from its "Booting ... Processor N" line to
its "CPUN is up") and each MTRR rendezvous of the thaw, timed from the debug
patch's `stop_machine: rendezvous` line to its last MTRR write (the last `MTRR cpu` line
before the next rendezvous, "CPUn is up" or the end of the thaw; the debug patch prints no
line when a rendezvous ends); a rendezvous before the last CPU is up is an early one (v2's,
or v1's, for one incoming AP), the others the final one. Attempts without a platform resume
(pm_test) are only counted. An AP put online by hand (the hotplug case) is timed from its
Booting line to the guest's "qemulab: hotplug: CPUn online" line, written right after the
online returned. Then, per case, the medians and the fixed kernel's median over the
unpatched kernel's, and for the hotplug case each kernel's resume AP step over its own
hotplug AP step. FIX names the fix patch the with-fix kernel carried. These are times of
QEMU's TCG on the host that ran the lab, which is why the header records how QEMU ran the
vCPUs (ACCEL) and the host's load average when the lab started (LOAD); CI does not compare
them.
"""

import json
import os
import pathlib
import re
import statistics
import sys

from judge import attempts

KMSG = re.compile(r"^\d+,\d+,(\d+),[^;]*;(.*)$")
RENDEZVOUS = re.compile(r"stop_machine: rendezvous for cache_")
UP = re.compile(r"\bCPU(\d+) is up")
BOOTING = re.compile(r"smpboot: Booting Node \d+ Processor (\d+)")
RELEASE = re.compile(r"Linux version (\S+)")
BROUGHT_UP = re.compile(r"smp: Brought up \d+ nodes?, (\d+) CPUs?")
HOTPLUGGED = re.compile(r"qemulab: hotplug: CPU(\d+) online")


def stamped(line):
    """(microseconds, message) of a /dev/kmsg record, or None for a continuation line."""
    m = KMSG.match(line)
    return (int(m.group(1)), m.group(2)) if m else None


def ms(usec):
    return round(usec / 1000, 3)


def time_attempt(attempt):
    """Bring-up and thaw in ms, (early?, ms) for each MTRR rendezvous of one thaw, and the
    ms of each AP's step (from its "Booting ... Processor N" line to its "CPUN is up")."""
    thaw = [r for r in map(stamped, attempt["thaw"]) if r]
    start = thaw[0][0]
    ups = [usec for usec, message in thaw if UP.search(message)]
    end = stamped(attempt["end"]) if attempt["end"] else None
    rendezvous = []
    for i, (begin, message) in enumerate(thaw):
        if not RENDEZVOUS.search(message):
            continue
        last = begin
        for usec, later in thaw[i + 1 :]:
            if later.startswith("stop_machine:") or UP.search(later):
                break
            if later.startswith("MTRR cpu"):
                last = usec
        rendezvous.append((bool(ups) and begin < ups[-1], ms(last - begin)))
    bringup = ms(ups[-1] - start) if ups else None
    return bringup, (ms(end[0] - start) if end else None), rendezvous, ap_steps(thaw, UP)


def ap_steps(records, end):
    """The ms of each AP's step in RECORDS, (usec, message) pairs: from its "Booting ...
    Processor N" line to the next line END matches for the same CPU."""
    booting, steps = {}, []
    for usec, message in records:
        m = BOOTING.search(message)
        if m:
            booting[m.group(1)] = usec
        m = end.search(message)
        if m and m.group(1) in booting:
            steps.append(ms(usec - booting.pop(m.group(1))))
    return steps


def hotplug_steps(lines):
    """The ms of each AP put online by hand: its Booting line to the guest's marker."""
    return ap_steps(filter(None, map(stamped, lines)), HOTPLUGGED)


def median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 3) if values else None


def scalar(value):
    """A YAML scalar: null, a number, or a string quoted as JSON (which YAML reads)."""
    if value is None:
        return "null"
    return str(value) if isinstance(value, (int, float)) else json.dumps(value)


def flow(values):
    return "[" + ", ".join(map(scalar, values)) + "]"


def ratio(a, b):
    return round(a / b, 2) if a and b else None


def main():
    out, accel, load, fix, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    lines = [
        "# Emulator time (QEMU TCG on the machine that ran the lab), not hardware time, in ms per",
        "# resume: bringup_ms from Enabling non-boot CPUs to the last CPU up, thaw_ms to the",
        "# platform's Waking up line or a hibernation's exit line (the final rendezvous",
        "# included), and the count and median",
        "# of the MTRR rendezvous in the thaws, each from its start to its last MTRR write: the",
        "# early ones (before the last CPU is up: one per AP restored as it came up) and the final",
        "# one after the bring-up;",
        "# ap_step: each AP's own step, from its Booting line to its CPUn is up line.",
        "# hotplug_ap_step: an AP put online by hand, from its Booting line to the line the",
        "# guest writes when the online returned (the hotplug case, without the debug printing).",
        "# summary: the medians per case and the fixed kernel's (fix: the patches) over the",
        "# unpatched kernel's; resume_over_hotplug: a kernel's resume AP step over its own",
        "# hotplug AP step, same guest, same run.",
        "# Generated by examples/qemu-lab/timings.py; CI does not compare it.",
        f"accel: {scalar(accel)}",
        f"host_cpus: {os.cpu_count()}",
        f"host_load_at_start: {scalar(load)}",
        f"fix: {scalar(fix)}",
        "runs:",
    ]
    medians = {}
    for run in runs:
        name, bundle = run.split("=", 1)
        kernel, case = name.split("/")
        log = (pathlib.Path(bundle) / "kernel.log").read_text(encoding="utf-8", errors="replace")
        found = attempts(log.splitlines())
        release, cpus = RELEASE.search(log), BROUGHT_UP.search(log)
        timed = [time_attempt(a) for a in found if a["resumed"]]
        bringup = [t[0] for t in timed]
        thaw = [t[1] for t in timed]
        early = [length for t in timed for is_early, length in t[2] if is_early]
        final = [length for t in timed for is_early, length in t[2] if not is_early]
        steps = [step for t in timed for step in t[3]]
        hotplug = hotplug_steps(log.splitlines())
        lines += [
            f"  - kernel: {scalar(kernel)}",
            f"    case: {scalar(case)}",
            f"    kernel_release: {scalar(release.group(1) if release else None)}",
            f"    cpus: {scalar(int(cpus.group(1)) if cpus else None)}",
            f"    bringup_ms: {flow(bringup)}",
            f"    thaw_ms: {flow(thaw)}",
            f"    attempts_without_platform_resume: {len(found) - len(timed)}",
            f"    ap_steps: {len(steps)}",
            f"    ap_step_median_ms: {scalar(median(steps))}",
            f"    hotplug_ap_steps: {len(hotplug)}",
            f"    hotplug_ap_step_median_ms: {scalar(median(hotplug))}",
            f"    early_rendezvous: {len(early)}",
            f"    early_rendezvous_median_ms: {scalar(median(early))}",
            f"    final_rendezvous: {len(final)}",
            f"    final_rendezvous_median_ms: {scalar(median(final))}",
        ]
        medians[(kernel, case)] = (median(bringup), median(thaw), median(steps), median(hotplug))
    lines.append("summary:")
    for (kernel, case), (bringup, thaw, step, hotplug) in medians.items():
        if kernel != "with-fix" or ("without-fix", case) not in medians:
            continue
        base_bringup, base_thaw, base_step, base_hotplug = medians[("without-fix", case)]
        fields = {
            "case": case,
            "without_fix_bringup_ms": base_bringup,
            "with_fix_bringup_ms": bringup,
            "bringup_ratio": ratio(bringup, base_bringup),
            "without_fix_thaw_ms": base_thaw,
            "with_fix_thaw_ms": thaw,
            "thaw_ratio": ratio(thaw, base_thaw),
            "without_fix_ap_step_ms": base_step,
            "with_fix_ap_step_ms": step,
        }
        if hotplug and base_hotplug:
            fields.update({
                "without_fix_hotplug_ap_step_ms": base_hotplug,
                "with_fix_hotplug_ap_step_ms": hotplug,
                "without_fix_resume_over_hotplug": ratio(base_step, base_hotplug),
                "with_fix_resume_over_hotplug": ratio(step, hotplug),
            })
        lines.append("  - {" + ", ".join(f"{k}: {scalar(v)}" for k, v in fields.items()) + "}")
    if lines[-1] == "summary:":
        lines[-1] += " []"
    pathlib.Path(out).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
