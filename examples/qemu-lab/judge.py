#!/usr/bin/env python3
"""Judge one run of the QEMU lab and print its entry of verdicts.yaml.

Usage: judge.py KERNEL CASE BUNDLE CHECK_OUTPUT APS CYCLES

KERNEL is without-fix, with-fix or leaky-fix (the fix with a test-only leak, which the
good-stale case must catch); CASE one of seabios, ovmf, clobber, good, mixed, stale,
good-stale, guest, hotplug, hibernate (see examples/qemu-lab/run). BUNDLE is what `kernlog capture` recorded in the guest. The counts
come from its kernel.log (the kernel's own log, from /dev/kmsg) by reading, not from kernlog:
the debug patch prints one `MTRR cpu N changes:XYZ` line per set_mtrr_state() pass ("___"
for a pass that wrote nothing) and, with stop_machine_debug, one `stop_machine: rendezvous`
line per rendezvous; the bundle's mtrr/*.txt hold every CPU's MTRRs after boot and after
every resume, read from /dev/cpu/N/msr. For each resume (a suspend whose boot CPU went
through the platform's low-level resume, or a hibernation whose image was restored) it counts

- the boot CPU's restore: did it write anything (before "Enabling non-boot CPUs");
- while the APs are thawed: set_mtrr_state() passes, passes that wrote (MTRR writes),
  rendezvous, and the APs programmed before their "CPUn is up" line (restored early);
- the fix's one-line diagnostic.

Attempts that thawed the APs without a platform resume (pm_test) are counted apart: with the
fix, what they restore early and report must be exactly the APs their own first pass found
changed (QEMU resets an AP's MTRRs on INIT, so under QEMU that is every AP). With the fix,
every resume must also keep the bounds the patch states: for k APs restored early, at most
k + 1 rendezvous, exactly k when every AP was, at most n + 1 MTRR writes, and no CPU
through more than one MTRR pass (the boot CPU's restore counted). The hotplug
case runs without the debug printing (it is for timing), so only its resumes, its verdict
and its MTRR dumps are judged. The entry holds verdicts only, no timings, so that a rerun
gives the same text; timings.py writes the times. Exits 1, with the reasons on stderr, when
the run breaks what the lab expects for its kernel and case; for leaky-fix, when it does
not (the case failed to catch the leak).
"""

import json
import pathlib
import re
import sys

DUMP = re.compile(r"^cpu(\d+) (.*)$")
PASS = re.compile(r"MTRR cpu (\d+) changes:([VFT_]{3})")
UP = re.compile(r"\bCPU(\d+) is up")
ITEM = re.compile(r"^\[(PASS|FAIL|SKIP)\] ([^:]+):")
RENDEZVOUS = "stop_machine: rendezvous for cache_"  # the MTRR/PAT rendezvous, not a clocksource change
DIAGNOSTIC = re.compile(r"mtrr: CPUs (\S+) resumed with changed MTRRs, restored early")
V1_DIAGNOSTIC = "unexpected MTRR settings on resume"


def attempts(lines):
    """Each suspend or hibernation attempt that thawed the APs: whether it resumed, the boot
    CPU's lines before the thaw, the thaw's lines and the line that ended the thaw (None if
    the log ends inside it). A hibernation's log, read in the restored system, holds what the
    kernel printed up to its image and then the restore: the thaw that followed the image's
    creation, in the boot that powered off, is not in it."""
    out, current = [], None
    for line in lines:
        if "PM: suspend entry" in line or "PM: hibernation: hibernation entry" in line:
            current = {"bp": [], "thaw": [], "thawing": False, "resumed": False, "end": None}
            out.append(current)
            continue
        if current is None:
            continue
        if "Low-level resume complete" in line or "Hibernation image restored successfully" in line:
            current["resumed"] = True
        if "Enabling non-boot CPUs" in line:
            current["thawing"] = True
        ends = ("PM: suspend exit", "Waking up from system sleep state", "PM: hibernation: hibernation exit")
        if current["thawing"] and any(end in line for end in ends):
            current["thawing"] = False
            current["end"] = line
        if current["thawing"]:
            current["thaw"].append(line)
        elif not current["thaw"]:
            current["bp"].append(line)
    return [a for a in out if a["thaw"]]


def count(attempt, aps):
    passes, early, up, seen, changed = [], set(), set(), set(), set()
    for line in attempt["thaw"]:
        m = PASS.search(line)
        if m:
            cpu = int(m.group(1))
            passes.append(m.group(2))
            if cpu != 0 and cpu not in up:
                early.add(cpu)
            if cpu != 0 and cpu not in seen and m.group(2) != "___":
                changed.add(cpu)
            seen.add(cpu)
        m = UP.search(line)
        if m:
            up.add(int(m.group(1)))
    bp = [PASS.search(l).group(2) for l in attempt["bp"] if PASS.search(l) and PASS.search(l).group(1) == "0"]
    # Passes per CPU in this resume: the boot CPU's restore (its last pass before the thaw)
    # and every pass of the thaw.
    per_cpu = {0: 1} if bp else {}
    for line in attempt["thaw"]:
        m = PASS.search(line)
        if m:
            per_cpu[int(m.group(1))] = per_cpu.get(int(m.group(1)), 0) + 1
    return {
        "boot_cpu_write": 1 if bp and bp[-1] != "___" else 0,
        "most_passes": max(per_cpu.values(), default=0),
        "passes": len(passes),
        "writes": sum(p != "___" for p in passes),
        "rendezvous": sum(RENDEZVOUS in l for l in attempt["thaw"]),
        "early": sorted(early),
        "changed": sorted(changed),
        "diagnostics": sum(bool(DIAGNOSTIC.search(l)) or V1_DIAGNOSTIC in l for l in attempt["thaw"]),
        "up": len(up),
    }


def compare_dumps(bundle):
    dumps = pathlib.Path(bundle) / "mtrr"

    def read(path):
        return dict(m.groups() for m in map(DUMP.match, path.read_text().splitlines()) if m)

    if not (dumps / "boot.txt").exists():
        return "no dumps", ["the bundle has no mtrr/boot.txt"]
    boot, total, differ = read(dumps / "boot.txt"), 0, []
    after = sorted(dumps.glob("after-cycle-*.txt"), key=lambda p: int(p.stem.rsplit("-", 1)[1]))
    for path in after:
        for cpu, regs in read(path).items():
            total += 1
            if boot.get(cpu) != regs:
                differ.append(f"{path.stem}:cpu{cpu}")
    if total == 0:
        return "no dumps", ["the bundle has no MTRR dumps after a resume"]
    if differ:
        return f"{len(differ)} of {total} differ: {' '.join(differ)}", [
            f"MTRRs differ from the boot state: {' '.join(differ)}"
        ]
    return f"all {total} equal to boot", []


def expected(kernel, case, aps):
    """What each resume must show: (boot CPU writes, APs restored early, writes, passes,
    rendezvous, diagnostics). QEMU resets the APs on INIT, except where the test-only
    firmware restores them (good, good-stale: every AP; mixed: the even-numbered ones; a
    hibernation's restore has no firmware in it, and its boot CPU is as the booting kernel
    set it up, which is as the restored kernel did at its own boot); the
    fix restores the APs that differ early unless the hypervisor bit sends it down the old
    path (guest), and its final rendezvous leaves out the boot CPU and the APs it restored
    early."""
    bp = 1 if case in ("ovmf", "clobber", "mixed", "stale") else 0
    if case in ("good", "good-stale"):
        reset = []
    elif case == "mixed":
        reset = [cpu for cpu in range(1, aps + 1) if cpu % 2]
    else:
        reset = list(range(1, aps + 1))
    if kernel == "without-fix" or case == "guest":
        # One final rendezvous of every CPU, the boot CPU included.
        return bp, [], len(reset), aps + 1, 1, 0
    if len(reset) == aps:
        # Every AP restored early: the final rendezvous is skipped, one pass per AP.
        return bp, reset, aps, aps, aps, 1
    # The APs that differ restored early, then one rendezvous for the others.
    return bp, reset, len(reset), aps, len(reset) + 1, int(bool(reset))


def flow(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def main():
    kernel, case, bundle, check_path, aps, cycles = sys.argv[1:7]
    aps, cycles = int(aps), int(cycles)
    with open(pathlib.Path(bundle) / "kernel.log", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    with open(check_path, encoding="utf-8") as f:
        check_lines = f.read().splitlines()
    verdict = check_lines[-1] if check_lines else "no output"
    # Line numbers depend on how many boot messages came first: not a verdict.
    verdict = re.sub(r" \(lines? [0-9, -]+\)", "", verdict)
    items = [f"{m.group(1)} {m.group(2)}" for m in map(ITEM.match, check_lines) if m]

    runs = attempts(lines)
    resumes = [count(a, aps) for a in runs if a["resumed"]]
    aborted = [count(a, aps) for a in runs if not a["resumed"]]
    dumps, problems = compare_dumps(bundle)

    bp, early, writes, passes, rendezvous, diagnostics = expected(kernel, case, aps)
    counted = case != "hotplug"
    if len(resumes) != cycles:
        problems.append(f"{len(resumes)} resumes found, {cycles} cycles run")
    for i, r in enumerate(resumes, 1):
        if not counted:
            break
        total, k = r["boot_cpu_write"] + r["writes"], len(r["early"])
        if kernel != "without-fix":
            if total > aps + 1:
                problems.append(f"resume {i}: {total} MTRR writes, more than n + 1 = {aps + 1}")
            if r["rendezvous"] > k + 1 or (k == aps and r["rendezvous"] != k):
                problems.append(f"resume {i}: {r['rendezvous']} rendezvous for {k} of {aps} APs restored early")
            # The guest case takes the old path, whose final rendezvous has the boot CPU too.
            if r["most_passes"] > 1 and case != "guest":
                problems.append(f"resume {i}: a CPU went through {r['most_passes']} MTRR passes, more than one")
        want = (bp, early, writes, passes, rendezvous, diagnostics, aps)
        got = (r["boot_cpu_write"], r["early"], r["writes"], r["passes"], r["rendezvous"], r["diagnostics"], r["up"])
        if got != want:
            problems.append(
                f"resume {i}: boot CPU write, APs restored early, thaw writes, thaw passes, "
                f"rendezvous, diagnostics, APs up = {got}, expected {want}"
            )
    # kernlog check, the tester's verdict: PASS with the fix; FAIL wherever the firmware
    # handed the APs back changed and no diagnostic says so (no fix, or the guest's old path),
    # PASS where it did not. The hotplug case has no debug lines to check against.
    fixed = kernel != "without-fix" and case != "guest"
    want = "PASS" if fixed or case in ("good", "good-stale") else "FAIL"
    if counted and not verdict.startswith(want):
        problems.append(f"kernlog check says {verdict!r}, expected {want}")
    if case in ("stale", "good-stale") and len(aborted) != 1:
        problems.append(f"{len(aborted)} aborted attempts that thawed the APs, expected 1")
    # An aborted attempt has no firmware in it, but QEMU resets an AP's MTRRs on INIT (a real
    # processor keeps them), so its APs may still come back changed. With the fix, what it
    # restores early and says must be exactly what its own APs showed; without, nothing.
    for a in aborted:
        want_early = a["changed"] if kernel != "without-fix" else []
        if a["early"] != want_early or a["diagnostics"] != int(bool(want_early)):
            problems.append(
                f"an aborted attempt: APs found changed {a['changed']}, restored early {a['early']}, "
                f"{a['diagnostics']} diagnostics"
            )

    print(f"  - kernel: {kernel}")
    print(f"    case: {case}")
    print(f"    resumes: {len(resumes)}")
    print(f"    check: {json.dumps(verdict)}")
    print(f"    check_items: {flow(json.dumps(i) for i in items)}")
    if not counted:
        print('    counts: "not counted: a timing run, without the debug printing"')
        resumes, aborted = [], []
    print(f"    boot_cpu_writes: {flow(r['boot_cpu_write'] for r in resumes)}")
    print(f"    aps_restored_early: {flow(len(r['early']) for r in resumes)}")
    print(f"    thaw_passes: {flow(r['passes'] for r in resumes)}")
    print(f"    thaw_writes: {flow(r['writes'] for r in resumes)}")
    print(f"    mtrr_writes: {flow(r['boot_cpu_write'] + r['writes'] for r in resumes)}")
    print(f"    rendezvous: {flow(r['rendezvous'] for r in resumes)}")
    print(f"    most_passes_per_cpu: {flow(r['most_passes'] for r in resumes)}")
    print(f"    fix_diagnostics: {flow(r['diagnostics'] for r in resumes)}")
    if aborted:
        print(f"    aborted_attempts: {len(aborted)}")
        print(f"    aborted_aps_found_changed: {flow(len(a['changed']) for a in aborted)}")
        print(f"    aborted_aps_restored_early: {flow(len(a['early']) for a in aborted)}")
        print(f"    aborted_diagnostics: {flow(a['diagnostics'] for a in aborted)}")
    print(f"    cpu_mtrrs_after_resume: \"{dumps}\"")
    if kernel == "leaky-fix":
        # The point of this run: the case must find the leak. What it found is the verdict.
        print(f"    leak_caught_by: {flow(json.dumps(p) for p in problems)}")
        if not problems:
            print(f"qemu-lab: {kernel}/{case}: the leaky variant passed: the case cannot fail", file=sys.stderr)
        sys.exit(0 if problems else 1)
    for p in problems:
        print(f"qemu-lab: {kernel}/{case}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
