"""Helpers shared by the live-server stages (live_fuzz.py, load.py).

They talk to a running server through psql subprocesses (PGHOST, PGPORT,
PGUSER, PGDATABASE from the environment; no Python driver needed) and read
what the kernel says about its backends from /proc, so they must run on
the server's machine with the right to read /proc/<pid>/status.
"""
import os
import re
import subprocess

# What the postmaster logs when a backend dies abnormally or the server
# restarts after a crash (LOG level: log_min_messages must be 'log' or lower
# for these to reach the log; ServerLog.raise_level sees to that).
CRASH_PATTERNS = re.compile(
    r"terminated by signal|exited with exit code|was terminated by exception|"
    r"all server processes terminated; reinitializing|PANIC:|TRAP:|"
    r"database system was interrupted|terminating any other active server processes")

# What psql prints when its backend vanished under it.
LOST_CONNECTION = re.compile(
    r"server closed the connection unexpectedly|connection to server was lost|"
    r"terminating connection because of crash of another server process|"
    r"no connection to the server")


def psql(sql, timeout=60, check=True):
    """Runs sql in one psql session; returns its unaligned, tuples-only stdout."""
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"],
                       input=sql, capture_output=True, text=True, timeout=timeout)
    if check and r.returncode != 0:
        raise RuntimeError("psql failed: %s\n-- sql: %s" % (r.stderr.strip(), sql[:500]))
    return r.stdout


def sql_literal(s):
    return "'" + s.replace("'", "''") + "'"


def sql_ident(s):
    return '"' + s.replace('"', '""') + '"'


def proc_status_kb(pid, field):
    """VmRSS / VmHWM (kB) of a process, or None once it is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


class ServerLog:
    """Reads what the server logged since the last look, for crash lines."""

    def __init__(self, path):
        self.path = path
        self.offset = os.path.getsize(path) if path and os.path.exists(path) else 0
        self.saved_level = None

    def raise_level(self):
        # LOG is ranked above ERROR in the server log's ordering: 'log' keeps
        # the crash lines and leaves the expected ERRORs out of the log.
        self.saved_level = psql("SHOW log_min_messages").strip()
        psql("ALTER SYSTEM SET log_min_messages = 'log';\nSELECT pg_reload_conf();")

    def restore_level(self):
        if self.saved_level is not None:
            psql("ALTER SYSTEM SET log_min_messages = %s;\nSELECT pg_reload_conf();"
                 % sql_literal(self.saved_level), check=False)

    def new_crash_lines(self):
        if not self.path or not os.path.exists(self.path):
            return []
        with open(self.path, "rb") as f:
            f.seek(self.offset)
            data = f.read()
        self.offset += len(data)
        return [l for l in data.decode("utf-8", "replace").splitlines()
                if CRASH_PATTERNS.search(l)]
