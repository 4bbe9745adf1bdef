#!/bin/sh
# Suspend to RAM and resume CYCLES times, then save this boot's kernel log.
# Usage: sudo sh resume-cycles.sh [CYCLES] [SECONDS_ASLEEP] [OUTPUT]
# Then: kernlog check OUTPUT
set -eu
cycles=${1:-5}
asleep=${2:-20}
out=${3:-resume-cycles.log}

command -v rtcwake >/dev/null || { echo "rtcwake (from util-linux) is needed" >&2; exit 1; }
if ! grep -q '\[deep\]' /sys/power/mem_sleep; then
  echo "note: suspend is not to RAM (S3); /sys/power/mem_sleep is: $(cat /sys/power/mem_sleep)" >&2
fi

i=1
while [ "$i" -le "$cycles" ]; do
  echo "cycle $i of $cycles: asleep for ${asleep} s"
  rtcwake -m mem -s "$asleep"
  sleep 10 # let the resume finish before the next suspend
  i=$((i + 1))
done

journalctl -k -b -o short-monotonic >"$out" 2>/dev/null || dmesg >"$out"
echo "kernel log written to $out; now run: kernlog check $out"
