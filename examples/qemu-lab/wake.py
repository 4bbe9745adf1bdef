#!/usr/bin/env python3
"""Wake a suspended QEMU guest through its QMP socket, and record what happened.

Usage: wake.py SOCKET [SECONDS_ASLEEP] [--record FILE] [--console FILE --resume-within S]

Used by the lab's run script (SECONDS_ASLEEP 1: every lab resume is started by this
watcher) and by .ci/debian-guest (a long SECONDS_ASLEEP: the guest's RTC alarm wakes it, and
this watcher is only the guard against an alarm that never rings).

A guest sets its CMOS RTC alarm before each suspend, but on a loaded host the alarm can ring
before the emulated machine has reached S3 (QEMU passes an RTC wake on only while the
machine is suspended), and the guest then sleeps for ever. This watcher asks QEMU for the
machine's state a few times a second and, once the guest has been suspended for
SECONDS_ASLEEP (default 1), sends `system_wakeup`: QEMU's ACPI reports that wake to the
guest as a power-button press. It ends when QEMU closes the socket.

With --record, every suspend and wake is appended to FILE as one JSON object a line, with
the host's time (seconds since the epoch): {"event": "SUSPEND"}, {"event": "WAKEUP"} (QEMU's
own events, whatever woke the guest) and {"event": "system_wakeup", "asleep_s": ...} (this
watcher pressed the button), so that a run can say which wakes were the alarm's.

With --console, a guest that QEMU woke but whose console stays silent for S seconds after
the wake (a resume that hung in the emulated machine; the kernel writes its resume lines
at once) is ended with `quit`, recorded as {"event": "no-resume", "after_s": S}, so that the
caller can boot it again at once instead of waiting for its own time-out.
"""

import os

import argparse
import json
import socket
import sys
import time


def connect(path):
    for _ in range(200):  # QEMU creates the socket as it starts
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            return sock
        except OSError:
            sock.close()
            time.sleep(0.05)
    return None


class Monitor:
    """One QMP connection: commands and their replies, events on the side."""

    def __init__(self, sock, record, console):
        self.stream = sock.makefile("rw")
        self.record = record
        self.console = console
        self.woken = None  # when QEMU last reported a wake not yet followed by console output
        self.asleep_size = 0  # the console's size when the guest went to sleep

    def console_size(self):
        try:
            return os.path.getsize(self.console) if self.console else 0
        except OSError:
            return 0

    def resume_hung(self, within):
        """Whether the guest has written nothing on its console `within` seconds after
        the last wake (ever False without --console)."""
        if self.console is None or self.woken is None:
            return False
        if self.console_size() > self.asleep_size:
            self.woken = None
            return False
        return time.monotonic() - self.woken >= within

    def note(self, entry, when=None):
        if self.record is None:
            return
        entry = {"t": round(when if when is not None else time.time(), 3), **entry}
        self.record.write(json.dumps(entry) + "\n")
        self.record.flush()

    def read(self):
        line = self.stream.readline()
        if not line:
            raise EOFError
        message = json.loads(line)
        event = message.get("event")
        if event == "SUSPEND":
            self.asleep_size = self.console_size()
        elif event == "WAKEUP":
            self.woken = time.monotonic()
        if event in ("SUSPEND", "WAKEUP", "RESET", "SHUTDOWN", "STOP"):
            stamp = message.get("timestamp", {})
            when = stamp.get("seconds", 0) + stamp.get("microseconds", 0) / 1e6
            self.note({"event": event}, when or None)
        return message

    def command(self, name):
        self.stream.write(json.dumps({"execute": name}) + "\n")
        self.stream.flush()
        while True:  # events may come before the reply
            reply = self.read()
            if "return" in reply or "error" in reply:
                return reply


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("socket")
    parser.add_argument("asleep", nargs="?", type=float, default=1.0)
    parser.add_argument("--record", metavar="FILE")
    parser.add_argument("--console", metavar="FILE")
    parser.add_argument("--resume-within", type=float, default=60.0, metavar="S")
    args = parser.parse_args()
    sock = connect(args.socket)
    if sock is None:
        print(f"wake.py: no QMP socket at {args.socket}", file=sys.stderr)
        return 1
    record = open(args.record, "a", encoding="utf-8") if args.record else None
    monitor = Monitor(sock, record, args.console)
    try:
        monitor.read()  # the greeting
        monitor.command("qmp_capabilities")
        since = None
        while True:
            if monitor.resume_hung(args.resume_within):
                monitor.note({"event": "no-resume", "after_s": args.resume_within})
                monitor.command("quit")
                return 0
            status = monitor.command("query-status").get("return", {}).get("status")
            if status == "suspended":
                since = since or time.monotonic()
                asleep = time.monotonic() - since
                if asleep >= args.asleep:
                    monitor.note({"event": "system_wakeup", "asleep_s": round(asleep, 1)})
                    monitor.command("system_wakeup")
                    since = None
            else:
                since = None
            time.sleep(0.2)
    except (EOFError, OSError, ValueError):
        return 0  # QEMU has exited
    finally:
        if record is not None:
            record.close()


if __name__ == "__main__":
    sys.exit(main())
