"""Reproducible installs (issue 9 item 8): the lock files pin every package with hashes,
cover everything pyproject.toml asks for, agree with each other, and the audit reads
pip-audit's report the way CI needs it."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tools.audit import read_report, verdict

ROOT = Path(__file__).resolve().parents[2]


def pins(path: Path) -> dict[str, str]:
    text = path.read_text()
    found = {}
    for block in re.split(r"\n(?=\S)", text):
        m = re.match(r"([A-Za-z0-9_.\-]+)==([^\s\\;]+)", block)
        if m:
            assert "--hash=sha256:" in block, f"{m.group(1)} has no hash in {path.name}"
            found[canonicalize_name(m.group(1))] = m.group(2)
    return found


def test_the_locks_pin_everything_pyproject_needs_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    runtime = [Requirement(r) for r in project["dependencies"]]
    test = [Requirement(r) for r in project["optional-dependencies"]["test"]]
    full, slim = pins(ROOT / "requirements-test.lock"), pins(ROOT / "requirements.lock")
    for req in runtime + test:
        name = canonicalize_name(req.name)
        assert name in full and req.specifier.contains(full[name], prereleases=True), req
    for req in runtime:
        assert canonicalize_name(req.name) in slim, req
    # the image runs what the tests ran
    assert {n: v for n, v in slim.items() if n in full} == {n: full[n] for n in slim if n in full}
    assert "setuptools" in slim  # the build backend too: nothing unpinned is fetched to build the app


def test_the_makefile_and_the_image_install_only_the_locked_set() -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "--require-hashes --no-deps -r $(LOCK)" in makefile and "LOCK := requirements-test.lock" in makefile
    assert "--no-deps --no-build-isolation -e ." in makefile
    assert "make audit" in (ROOT / ".ci" / "run").read_text()


def test_the_audit_fails_on_a_finding_and_says_when_nothing_could_be_checked() -> None:
    found = read_report({"dependencies": [
        {"name": "jinja2", "version": "3.1.2", "vulns": [{"id": "GHSA-h5c8-rqwp-cp95", "fix_versions": ["3.1.3"]}]},
        {"name": "httpx", "version": "0.28.1", "vulns": []}]})
    status, text = verdict(found)
    assert status == 1 and "VULNERABLE jinja2==3.1.2: GHSA-h5c8-rqwp-cp95 (fixed in 3.1.3)" in text
    clean = verdict(read_report({"dependencies": [{"name": "httpx", "version": "0.28.1", "vulns": []}]}))
    assert clean == (0, "checked 1 of 1 locked packages: 0 with known vulnerabilities")
    offline = verdict(read_report({"dependencies": [
        {"name": "httpx", "version": "0.28.1", "skip_reason": "Dependency not found on PyPI"}]}))
    assert offline[0] == 0 and offline[1].startswith("NOT CHECKED: none of the 1 locked packages")
