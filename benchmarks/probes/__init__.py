"""Probes: shell scripts that run the commands on bad input, faults and concurrent runs and
print what a user sees (exit code, last line of stderr)."""
