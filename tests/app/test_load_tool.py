"""The load tool says how busy the rest of the machine was during a run: the goals' figures
are for a quiet machine, and figures taken beside other work looked ten times worse."""

from __future__ import annotations

import time

from tools import loadtest, tables_load


def test_the_machines_cpu_time_counts_what_this_process_burns() -> None:
    before, own = tables_load.machine_busy_s(), time.process_time()
    # burn a fixed amount of this process's CPU, however busy the machine is (spinning for a
    # fixed wall time burnt less than asked beside other work)
    while time.process_time() - own < 0.25:
        pass
    burnt = time.process_time() - own
    # the whole machine's CPU time grew by at least what this process spent (ticks of 10 ms)
    assert tables_load.machine_busy_s() - before >= burnt - 0.05


def test_other_processes_share_is_what_the_servers_and_the_generator_do_not_account_for() -> None:
    assert tables_load.others_share(busy_s=3.0, server_s=1.0, own_s=0.5, wall_s=5.0) == 0.3
    # clock ticks can make the parts add up to a little more than the whole: never below 0
    assert tables_load.others_share(busy_s=1.0, server_s=0.9, own_s=0.2, wall_s=5.0) == 0.0
    assert tables_load.others_share(busy_s=1.0, server_s=0.5, own_s=0.1, wall_s=0.0) == 0.0


def test_the_runs_name_the_processor_and_a_run_beside_other_work_is_flagged() -> None:
    assert tables_load.cpu_model().strip()
    assert 0 < loadtest.QUIET_SHARE < 0.5
    tally = loadtest.Tally(started=0.0, finished=10.0, server_cpu=2.0, client_cpu=1.0, machine_cpu=9.0)
    tally.latencies = [5.0, 6.0]
    assert loadtest.summary(tally, "sqlite://")["others_cpu_share"] == 0.6


def test_every_scenarios_line_says_when_the_machine_was_not_quiet() -> None:
    tally = loadtest.Tally(started=0.0, finished=10.0, server_cpu=2.0, client_cpu=1.0, machine_cpu=9.0)
    tally.latencies = [5.0, 6.0]
    busy = loadtest.summary(tally, "sqlite://")
    assert "not quiet" in loadtest.line("medium players", busy)
    tally.machine_cpu = 3.5  # 0.05 of a core besides the server and the generator
    quiet = loadtest.summary(tally, "sqlite://")
    assert quiet["others_cpu_share"] <= loadtest.QUIET_SHARE
    assert "not quiet" not in loadtest.line("medium players", quiet)
    # the tables' scenario and the API's use the one sentence
    assert loadtest.not_quiet({"others_cpu_share": 0.6}) and not loadtest.not_quiet({})
