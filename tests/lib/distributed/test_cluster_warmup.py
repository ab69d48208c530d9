"""Tests for ``distributed.warmup_workers``: the kernels are loaded in each worker process itself
(not only compiled into the on-disk cache by a subprocess), and the plugin is registered once."""

import pytest

pytest.importorskip("distributed")
D = pytest.importorskip("simhash_lab.distributed")


def _state(dask_worker):
    """What the worker process holds: its warmup's results, and how many of the package's
    compiled kernels are loaded in this process (dispatchers with a compiled signature)."""
    import sys

    from numba.core.registry import CPUDispatcher

    loaded = {
        id(obj)
        for name, mod in list(sys.modules.items())
        if name.startswith("simhash_lab")
        for obj in list(vars(mod).values())
        if isinstance(obj, CPUDispatcher) and obj.signatures
    }
    warm = getattr(dask_worker, "_simhash_lab_warmup", None)
    return warm, getattr(dask_worker, "_simhash_lab_loaded", None), len(loaded)


@pytest.mark.timeout(300)
def test_warmup_loads_the_kernels_in_each_worker_process_once():
    cluster, client = D.local_cluster(1, processes=True)  # a fresh process: nothing loaded in it
    with cluster, client:
        (before,) = client.run(_state).values()
        assert before == (None, None, 0)
        got = D.warmup_workers(client)
        ((status, line),) = got.values()
        assert status == 0 and line.startswith("simhash-lab warmup: 0 kernels compiled")
        (after,) = client.run(_state).values()
        assert after[0] == (status, line)
        compiled, _ = after[1]
        assert compiled == 0 and after[2] > 20  # loaded in the worker, nothing compiled there
        # a second call finds the plugin registered: no second warmup on the warm worker
        assert D.warmup_workers(client) == got
        (again,) = client.run(_state).values()
        assert again == after
