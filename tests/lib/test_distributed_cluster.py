"""Tests for ``distributed.local_cluster``'s worker processes: they keep the C allocator's own
thresholds unless ``trim_memory`` asks for distributed's ``MALLOC_TRIM_THRESHOLD_``."""

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
