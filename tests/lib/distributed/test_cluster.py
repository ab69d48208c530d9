"""Tests for ``distributed.local_cluster``: its worker processes keep the C allocator's own
thresholds unless ``trim_memory`` asks for distributed's ``MALLOC_TRIM_THRESHOLD_``; without a
dashboard, no profiler and slower monitors."""

import os

import pytest

pytest.importorskip("distributed")
D = pytest.importorskip("simhash_lab.distributed")

KEY = "MALLOC_TRIM_THRESHOLD_"


def _trim():
    return os.environ.get(KEY)


@pytest.mark.timeout(120)
@pytest.mark.skipif(KEY in os.environ, reason="set in this environment: every worker inherits it")
def test_worker_processes_keep_the_allocators_thresholds():
    import dask

    theirs = str(dask.config.get(f"distributed.nanny.pre-spawn-environ.{KEY}"))
    for trim, want in ((False, None), (True, theirs)):
        cluster, client = D.local_cluster(1, trim_memory=trim)
        with cluster, client:
            assert set(client.run(_trim).values()) == {want}
    # the setting is the cluster's own: distributed's configuration is left as it was
    assert str(dask.config.get(f"distributed.nanny.pre-spawn-environ.{KEY}")) == theirs


def _settings(dask_worker) -> tuple:
    """Whether the worker's profiler runs, and its tick monitor's period (ms)."""
    return "profile" in dask_worker.periodic_callbacks, dask_worker.periodic_callbacks["tick"].callback_time


@pytest.mark.timeout(120)
def test_a_cluster_without_dashboard_runs_no_profiler_and_slower_monitors():
    import dask

    before = dask.config.get("distributed.worker.profile.enabled")
    cluster, client = D.local_cluster(1, processes=False)
    with cluster, client:
        assert set(client.run(_settings).values()) == {(False, 1000)}
    cluster, client = D.local_cluster(1, processes=False, quiet=False)
    with cluster, client:
        ((running, tick),) = client.run(_settings).values()
        assert running and tick < 1000
    # the settings are the cluster's own: distributed's configuration is left as it was
    assert dask.config.get("distributed.worker.profile.enabled") == before
