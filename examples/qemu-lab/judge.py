#!/usr/bin/env python3
"""Judge one run of the QEMU lab and print its entry of verdicts.yaml.

Usage: judge.py KERNEL FIRMWARE CONSOLE_LOG ANALYSIS_JSON CHECK_OUTPUT APS

Reads the console log (for the MTRR dumps that the lab's init writes), the analysis that
`kernlog analyze --json` made of it, and the output of `kernlog check`. Prints the run's
YAML entry (verdicts only, no timings, so that a rerun gives the same text) and exits 1,
with the reasons on stderr, when the run breaks what the lab expects:

- every run: one resume per cycle, every CPU's MTRRs after every resume equal to the same
  CPU's after boot;
- the MTRR updates after the boot CPU's restore, per resume: n(n+3)/2 for n APs when the
  kernel has the fix and the firmware changed the boot CPU's MTRRs, n + 1 otherwise;
- `kernlog check`: PASS for the kernel with the fix; without it, PASS where the firmware
  left the MTRRs alone and FAIL (the diagnostic is missing) where it changed them.
"""

import json
import re
import sys

DUMP = re.compile(r"qemulab: mtrrs (\S+) cpu(\d+) (.*)$")
ITEM = re.compile(r"^\[(PASS|FAIL|SKIP)\] ([^:]+):")


def resumed(cycles):
    return [c for c in cycles if c["cpus"]]


def runs_of(doc, cpu):
    for entry in doc["mtrr"]["changes"]:
        if entry["cpu"] == cpu:
            return entry["runs"]
    return []


def boot_cpu_restores(doc, cycles):
    """Flags of the boot CPU's restore in each resume (its run before the first AP boots)."""
    out = []
    for c in cycles:
        first_ap = min(cpu["booting_line"] or c["last_line"] for cpu in c["cpus"])
        flags = [r["flags"] for r in runs_of(doc, 0) if c["first_line"] <= r["line"] < first_ap]
        out.append(flags[0] if flags else "none")
    return out


def aps_at_first_check(doc, cycles):
    """The flags each AP's first MTRR check found in each resume, as one word per resume."""
    out = []
    for c in cycles:
        seen = set()
        for cpu in c["cpus"]:
            start = cpu["booting_line"] or c["first_line"]
            later = [r["flags"] for r in runs_of(doc, cpu["cpu"]) if start < r["line"] <= c["last_line"]]
            seen.add(later[0] if later else "none")
        out.append("/".join(sorted(seen)))
    return out


def compare_dumps(log_path):
    boot, total, differ = {}, 0, []
    with open(log_path, encoding="utf-8", errors="replace") as log:
        for line in log:
            m = DUMP.search(line.rstrip("\n"))
            if not m:
                continue
            when, cpu, regs = m.groups()
            if when == "boot":
                boot[cpu] = regs
            else:
                total += 1
                if boot.get(cpu) != regs:
                    differ.append(f"{when}:cpu{cpu}")
    if total == 0:
        return "no dumps", ["the log has no MTRR dumps after a resume"]
    if differ:
        return f"{len(differ)} of {total} differ: {' '.join(differ)}", [
            f"MTRRs differ from the boot state: {' '.join(differ)}"
        ]
    return f"all {total} equal to boot", []


def main():
    kernel, firmware, log_path, json_path, check_path, aps = sys.argv[1:7]
    aps = int(aps)
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    with open(check_path, encoding="utf-8") as f:
        check_lines = f.read().splitlines()
    cycles_expected = int(sys.argv[7]) if len(sys.argv) > 7 else None
    cycles = resumed(doc["cycles"])
    problems = []

    verdict = check_lines[-1] if check_lines else "no output"
    items = [f"{m.group(1)} {m.group(2)}" for m in map(ITEM.match, check_lines) if m]
    updates = [(c.get("mtrr_updates") or {}).get("after_boot_cpu") for c in cycles]
    with open(log_path, encoding="utf-8", errors="replace") as log:
        diagnostics = sum("unexpected MTRR settings on resume" in line for line in log)
    dumps, dump_problems = compare_dumps(log_path)
    problems += dump_problems

    fixed, changed = kernel == "with-fix", firmware == "changed"
    per_cpu, single = aps * (aps + 3) // 2, aps + 1
    expected = per_cpu if fixed and changed else single
    if cycles_expected is not None and len(cycles) != cycles_expected:
        problems.append(f"{len(cycles)} resumes found, {cycles_expected} cycles run")
    if any(u != expected for u in updates):
        problems.append(f"MTRR updates per resume {updates}, expected {expected} each")
    want = "FAIL" if changed and not fixed else "PASS"
    if not verdict.startswith(want):
        problems.append(f"kernlog check says {verdict!r}, expected {want}")
    if changed and not fixed and "FAIL diagnostic if and only if the MTRRs changed" not in items:
        problems.append("without the fix, the diagnostic item should be the one that fails")

    def flow(values):
        return "[" + ", ".join(str(v) for v in values) + "]"

    print(f"  - kernel: {kernel}")
    print(f"    firmware: {firmware}")
    print(f"    resumes: {len(cycles)}")
    print(f"    check: \"{verdict}\"")
    print(f"    check_items: {flow(json.dumps(i) for i in items)}")
    print(f"    boot_cpu_restore: {flow(boot_cpu_restores(doc, cycles))}")
    print(f"    aps_at_first_check: {flow(aps_at_first_check(doc, cycles))}")
    print(f"    fix_diagnostics: {diagnostics}")
    print(f"    mtrr_updates_after_boot_cpu: {flow(updates)}")
    print(f"    expected_updates: {expected}")
    print(f"    cpu_mtrrs_after_resume: \"{dumps}\"")
    for p in problems:
        print(f"qemu-lab: {kernel}/{firmware}: {p}", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
