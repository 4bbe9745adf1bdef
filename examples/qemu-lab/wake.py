#!/usr/bin/env python3
"""Wake a suspended QEMU guest through its QMP socket (called by the lab's run script).

Usage: wake.py SOCKET [SECONDS_ASLEEP]

The guest sets its CMOS RTC alarm before each suspend, but on a loaded host the alarm can
ring before the emulated machine has reached S3, and the guest then sleeps for ever. This
watcher removes that race: it asks QEMU for the machine's state a few times a second and,
once the guest has been suspended for SECONDS_ASLEEP (default 1), wakes it with
`system_wakeup`, as the power button would. It ends when QEMU closes the socket.
"""

import json
import socket
import sys
import time


def main():
    path = sys.argv[1]
    asleep = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    sock = None
    for _ in range(200):  # QEMU creates the socket as it starts
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            break
        except OSError:
            sock = None
            time.sleep(0.05)
    if sock is None:
        print(f"wake.py: no QMP socket at {path}", file=sys.stderr)
        return 1
    stream = sock.makefile("rw")

    def command(name):
        stream.write(json.dumps({"execute": name}) + "\n")
        stream.flush()
        while True:  # skip asynchronous events until the reply
            line = stream.readline()
            if not line:
                raise EOFError
            reply = json.loads(line)
            if "return" in reply or "error" in reply:
                return reply

    try:
        json.loads(stream.readline())  # the greeting
        command("qmp_capabilities")
        since = None
        while True:
            status = command("query-status").get("return", {}).get("status")
            if status == "suspended":
                since = since or time.monotonic()
                if time.monotonic() - since >= asleep:
                    command("system_wakeup")
                    since = None
            else:
                since = None
            time.sleep(0.2)
    except (EOFError, OSError, ValueError):
        return 0  # QEMU has exited


if __name__ == "__main__":
    sys.exit(main())
