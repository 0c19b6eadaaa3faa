"""One timed run of a benchmark command, shared by bench-driver.sh and
bench-cross-tu.sh: CPU time of all child processes (user + system: steadier
than wall time on a shared machine), wall time, and the findings of its output
as (file, line, column, check) of each warning under src/."""
import re
import resource
import subprocess
import time

FINDING = re.compile(r"^(?:.*/)?(src/[^:]+):(\d+):(\d+): warning: .*\[(torch-[a-z-]+)\]$")


def run(name, cmd, width=30):
    """Runs cmd, prints a line of its figures (the label padded to width) and
    the command's own libtorch-tidy: summary lines; returns (cpu, findings)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    found = {m.groups() for m in (FINDING.match(l.strip()) for l in p.stdout.splitlines()) if m}
    print("%-*s wall %6.1f s   cpu %6.1f s   %d findings" % (width, name + ":", wall, cpu, len(found)))
    for l in p.stderr.splitlines():
        if l.startswith("libtorch-tidy:"):
            print("    " + l)
    return cpu, found
