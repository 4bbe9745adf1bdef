#!/usr/bin/env python3
"""The checklist's shell blocks, as the Debian guest of .ci/debian-guest runs them.

Usage: checklist-blocks.py CHECKLIST.md              the guest's runner script, on stdout
       checklist-blocks.py --list CHECKLIST.md       one line per block: line, action, item
       checklist-blocks.py --shape CHECKLIST.md      the lines a transcript shows for them:
                                                     `$ COMMAND` and each block's `## item` line

Every ```sh block of the checklist carries a marker on the line just above its fence:

    <!-- guest: run -->                 the guest runs its commands, as written
    <!-- guest: skip: REASON -->        it cannot run in the guest, for REASON

A block without a marker, a marker without a block, or a run block with a line that goes
on to the next (a trailing backslash) is an error naming the line: the guest runs exactly
the chapter's text, and nothing can be added or left out of it unseen.

The runner prints each command after `$ ` and runs it in one bash shell (so `cd` carries
over), as the user who is logged in; it stops at the first command whose exit status is not
0, and its last line says how far it went. The one exception is `kernlog check`, whose exit
status is its verdict (0 PASS, 1 FAIL, 3 UNKNOWN): 1 and 3 are shown and the run goes on,
any other status stops it.
"""

import re
import shlex
import sys

MARKER = re.compile(r"^\s*<!-- guest: (run|skip: (?P<reason>[^<>]*\S)) -->\s*$")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
ITEM = re.compile(r"^## (\d+)\. ")


def blocks(path):
    """(line, action, reason, item, commands) of every sh block, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    found, item, marker, i = [], None, None, 0
    while i < len(lines):
        line = lines[i]
        heading = ITEM.match(line)
        if heading:
            item = heading.group(1)
        m = MARKER.match(line)
        fence = FENCE.match(line)
        if m:
            if marker:
                fail(path, marker[0], "a guest marker with no ```sh block right below it")
            marker = (i + 1, m)
        elif fence and fence.group(2):
            lang, indent, start = fence.group(2), fence.group(1), i + 1
            body = []
            i += 1
            while i < len(lines) and not FENCE.match(lines[i]):
                body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
                i += 1
            if lang == "sh":
                if not marker or marker[0] != start - 1:
                    fail(path, start, "a ```sh block without a guest marker on the line above "
                         "(<!-- guest: run --> or <!-- guest: skip: REASON -->)")
                m = marker[1]
                action = "run" if m.group(1) == "run" else "skip"
                if action == "run":
                    for n, text in enumerate(body, start + 1):
                        if text.rstrip().endswith("\\"):
                            fail(path, n, "a run block's command goes on to the next line; "
                                 "the guest runs one line at a time")
                found.append((start, action, m.group("reason"), item, body))
            elif marker:
                fail(path, marker[0], f"a guest marker above a ```{lang} block, not ```sh")
            marker = None
        elif marker and line.strip():
            fail(path, marker[0], "a guest marker with no ```sh block right below it")
        i += 1
    if marker:
        fail(path, marker[0], "a guest marker with no ```sh block right below it")
    if not any(b[1] == "run" for b in found):
        fail(path, 1, "no block is marked <!-- guest: run -->")
    return found


def fail(path, line, what):
    print(f"{path}:{line}: {what}", file=sys.stderr)
    sys.exit(2)


RUNNER = """#!/bin/bash
# Written by .ci/lib/checklist-blocks.py from {source}: do not edit.
ran=0
step() {{
  printf '$ %s\\n' "$1"
  eval "$1"
  local status=$?
  ran=$((ran + 1))
  case "$status:$1" in
    0:*) ;;
    [13]:"kernlog check "*)
      echo "== checklist: exit status $status: kernlog check's verdict (1 FAIL, 3 UNKNOWN), not an error" ;;
    *)
      echo "== checklist: stopped: exit status $status of the command above ($ran run)"
      exit 1 ;;
  esac
}}
note() {{ printf '%s\\n' "$1"; }}
"""


def lines(path):
    """("note", TEXT) and ("step", COMMAND) in the order the guest meets them."""
    for _, action, reason, item, body in blocks(path):
        where = f"item {item}" if item else "the introduction"
        if action == "skip":
            yield "note", f"## {where}: not run here: {reason}"
            continue
        yield "note", f"## {where}: run as written"
        for text in body:
            if text.strip():
                yield ("note" if text.lstrip().startswith("#") else "step"), text


def runner(path):
    out = [RUNNER.format(source=path)]
    total = 0
    for kind, text in lines(path):
        out.append(f"{kind} {shlex.quote(text)}")
        total += kind == "step"
    out.append(f'echo "== checklist: all {total} commands ran, none failed"')
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 3 and argv[1] == "--shape":
        for kind, text in lines(argv[2]):
            if kind == "step" or text.startswith("## "):
                print(f"$ {text}" if kind == "step" else text)
        return 0
    if len(argv) == 3 and argv[1] == "--list":
        for line, action, reason, item, _ in blocks(argv[2]):
            print(f"{line} {action} item={item or '-'}" + (f" ({reason})" if reason else ""))
        return 0
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    sys.stdout.write(runner(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
