#!/usr/bin/env python3
# cpu_share.py — runs one command and says how much of the machine other processes took while it
# ran, for the interleaved benchmarks (bench/llm-vs-llamacpp.sh): the CPU time every process used
# (/proc/stat: user, nice, system, irq, softirq, steal) minus the command's own (wait4 rusage),
# over the wall time times the CPU count. The command's stdout goes to OUT, its stderr passes
# through; prints `wall_s W other_share S` and exits with the command's status.
# Standard library only. Usage: python3 cpu_share.py OUT CMD [ARG...]
import os
import sys
import time


def busy_s():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    hz = os.sysconf("SC_CLK_TCK")
    return (v[0] + v[1] + v[2] + v[5] + v[6] + (v[7] if len(v) > 7 else 0)) / hz


if len(sys.argv) < 3:
    sys.exit("usage: cpu_share.py OUT CMD [ARG...]")
out = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
b0, t0 = busy_s(), time.monotonic()
pid = os.fork()
if pid == 0:
    os.dup2(out, 1)
    try:
        os.execvp(sys.argv[2], sys.argv[2:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall, busy = time.monotonic() - t0, busy_s() - b0
own = ru.ru_utime + ru.ru_stime
other = max(0.0, busy - own) / (wall * os.cpu_count()) if wall > 0 else 0.0
print("wall_s %.3f other_share %.3f" % (wall, min(other, 1.0)))
sys.exit(os.waitstatus_to_exitcode(status))
