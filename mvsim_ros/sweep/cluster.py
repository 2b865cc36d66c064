"""The Ray cluster a sweep runs on: a new local one that listens on the loopback interface only, or a running
cluster at a given address.

A local cluster (`address` None) is started with every Ray process (GCS, raylet, agents, workers) on 127.0.0.1:
nothing listens on the machine's other addresses, so no other machine can submit work to it. Ray on Linux picks
the machine's routable address for a local cluster; the variable RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 (Ray's
single-machine mode, the default on macOS and Windows) makes it pick 127.0.0.1, and it is set while Ray starts.
To run on several machines, start a cluster with `ray start --head` (and `ray start --address HEAD:PORT` on the
others) and pass its address.
"""

from __future__ import annotations

import ipaddress
import os

from mvsim_ros.sweep.errors import SweepError

#: Ray's switch between a single-machine (loopback) and a cluster node address.
_SINGLE_MACHINE = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"
_QUIET = {"log_to_driver": False, "logging_level": "ERROR", "configure_logging": False}


def connect(address: str | None = None, workers: int | None = None) -> None:
    """Start a local Ray cluster of `workers` CPUs (default: this machine's) on 127.0.0.1 when `address` is None,
    else join the cluster at `address`; nothing when Ray is already initialised in this process. SweepError (one
    line) when Ray cannot start or reach the cluster."""
    import ray

    if ray.is_initialized():
        return
    try:
        if address is not None:
            ray.init(address=address, **_QUIET)
            return
        _start_local(ray, workers)
    except SweepError:
        raise
    except Exception as exc:  # noqa: BLE001 (Ray raises many kinds: a refused address, a timeout, a bad token)
        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise SweepError(f"cannot start or reach {where}: {type(exc).__name__}: "
                         f"{' '.join(str(exc).split())}"[:400]) from None


def _start_local(ray, workers: int | None) -> None:
    from ray._private import ray_constants

    saved_env, saved_flag = os.environ.get(_SINGLE_MACHINE), ray_constants.ENABLE_RAY_CLUSTER
    os.environ[_SINGLE_MACHINE] = "0"  # read by Ray when it is imported (here: the processes it starts)
    ray_constants.ENABLE_RAY_CLUSTER = False  # and the value this process read when it imported Ray
    try:
        ray.init(address="local", num_cpus=workers, include_dashboard=False, _node_ip_address="127.0.0.1",
                 **_QUIET)
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = saved_flag
        if saved_env is None:
            os.environ.pop(_SINGLE_MACHINE, None)
        else:
            os.environ[_SINGLE_MACHINE] = saved_env
    node_ip = ray.util.get_node_ip_address()
    if not ipaddress.ip_address(node_ip).is_loopback:
        ray.shutdown()
        raise SweepError(f"the local Ray cluster took the address {node_ip}, not 127.0.0.1 (refusing to run a "
                         f"cluster reachable from other machines; start one with ray start and pass --address)")


def cpu_count() -> int:
    """CPUs of the connected cluster (at least 1)."""
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 1)))
