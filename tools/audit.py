"""Known vulnerabilities in the locked dependencies: ``python -m tools.audit [LOCK]``.

Runs pip-audit on the lock file (every requirement pinned and hashed, nothing installed or
resolved) and reads its JSON report:

* a known vulnerability in a locked package fails (exit 1), naming it and the fixed versions;
* when the advisory service cannot be asked (pip-audit's "pypi" service reads PyPI's JSON
  API, which the package mirror of this workplace does not serve, and OSV's API is not
  reachable either), every package comes back "skipped": that is said plainly, with the
  reason pip-audit gave, and the run passes, since nothing was found, but nothing was
  checked either.  On a machine that reaches PyPI the same command really checks.

No offline advisory database can be had from a package registry here: the only one
published on PyPI (``safety-db``) stopped in 2021, and pip-audit takes no local database.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Report:
    checked: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)
    vulnerable: dict[str, list[str]] = field(default_factory=dict)


def read_report(data: dict[str, Any]) -> Report:
    """pip-audit's ``--format json`` output, sorted into checked, skipped and vulnerable."""
    report = Report()
    for dep in data.get("dependencies", []):
        name = f"{dep.get('name')}=={dep.get('version', '?')}"
        if dep.get("skip_reason"):
            report.skipped[name] = str(dep["skip_reason"])
            continue
        report.checked.append(name)
        vulns = [f"{v.get('id')} (fixed in {', '.join(v.get('fix_versions') or []) or 'no release yet'})"
                 for v in dep.get("vulns", [])]
        if vulns:
            report.vulnerable[name] = vulns
    return report


def verdict(report: Report) -> tuple[int, str]:
    """The exit status and what to print."""
    lines = []
    for name, vulns in sorted(report.vulnerable.items()):
        lines.append(f"VULNERABLE {name}: {'; '.join(vulns)}")
    total = len(report.checked) + len(report.skipped)
    if report.skipped and not report.checked:
        reason = next(iter(report.skipped.values()))
        lines.append(f"NOT CHECKED: none of the {total} locked packages could be looked up in the advisory "
                     f"service from this machine (pip-audit: {reason!r}). Nothing was found because nothing "
                     "was checked; run `make audit` where PyPI's JSON API is reachable.")
    else:
        lines.append(f"checked {len(report.checked)} of {total} locked packages: "
                     f"{len(report.vulnerable)} with known vulnerabilities")
        for name, reason in sorted(report.skipped.items()):
            lines.append(f"  not checked: {name} ({reason})")
    return (1 if report.vulnerable else 0), "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    lock = Path(args[0] if args else "requirements-test.lock")
    # --disable-pip: read the pinned, hashed set as it is, without installing it anywhere
    run = subprocess.run([sys.executable, "-m", "pip_audit", "--requirement", str(lock), "--require-hashes",
                          "--disable-pip", "--format", "json", "--progress-spinner", "off"],
                         capture_output=True, text=True, timeout=900)
    try:
        data = json.loads(run.stdout)
    except json.JSONDecodeError:
        print(run.stdout + run.stderr, file=sys.stderr)
        print("pip-audit gave no report", file=sys.stderr)
        return 2
    status, text = verdict(read_report(data))
    print(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
