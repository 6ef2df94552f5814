"""Ray, the optional engine that spreads tournaments and training over many cores and machines
(extra ``ray``: ``pip install "tt_env[ray]"``).

Nothing here imports Ray at module level: ``tt-arena --ray`` and ``tt-train --backend rllib``
import it when they start, so the core package never needs it. :func:`ray_session` joins the
Ray instance the caller asked for (a new local one, ``auto``, ``host:port`` or
``ray://host:port``), or the one this process has already initialised, and refuses an address
that cannot be reached in one line, after a connect timeout, instead of hanging.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

RAY_EXTRA = 'pip install "tt_env[ray]"'
LOCAL = "local"
"""The address that means: start a Ray instance on this machine (``--ray`` alone)."""
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the head node's port to answer before the address is called unreachable."""


class RayError(RuntimeError):
    """Ray is not installed, or the Ray instance asked for cannot be reached."""


def require_ray(what: str) -> Any:
    """The ``ray`` module; :class:`RayError` naming the extra when it is not installed."""
    try:
        import ray
    except ImportError:
        raise RayError(f"{what} needs Ray, which is not installed: {RAY_EXTRA}") from None
    return ray


def check_address(address: str) -> str:
    """``address`` if it has the form of a Ray address (``local``, ``auto``, ``host:port`` or
    ``ray://host:port``), else :class:`RayError` saying which forms are."""
    text = address.strip()
    if text in (LOCAL, "auto"):
        return text
    host, port = _host_port(text)
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise RayError(
            f"{address!r} is not a Ray address: give none (a local Ray instance), 'auto' (the "
            "cluster this machine belongs to), host:port or ray://host:port"
        )
    return text


def check_ray(address: str, what: str, option: str, hint: str = "") -> str:
    """Everything that can be checked before any work: ``address`` (see :func:`check_address`;
    its error names ``option``, then ``hint``) and Ray being installed (its error names
    ``what``). Returns the address; :class:`RayError` for the first problem."""
    try:
        address = check_address(address)
    except RayError as exc:
        raise RayError(f"{option}: {exc}{hint}") from None
    require_ray(what)
    return address


def _host_port(address: str) -> tuple[str, str]:
    rest = address.split("://", 1)[1] if address.startswith("ray://") else address
    host, _, port = rest.rpartition(":")
    return host.strip("[]"), port


def probe(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """:class:`RayError` unless something answers at the address's host and port within
    ``timeout`` seconds (Ray's own connection attempts would retry for a minute or more)."""
    host, port = _host_port(address)
    try:
        with socket.create_connection((host, int(port)), timeout=timeout):
            pass
    except OSError as exc:
        if isinstance(exc, TimeoutError):
            reason = f"no answer within {timeout:g} s"
        else:
            reason = exc.strerror or str(exc)
        raise RayError(
            f"cannot reach Ray at {address}: {reason}; start the head "
            "node with 'ray start --head' and give the address it prints"
        ) from None


@contextmanager
def ray_session(address: str, num_cpus: int | None, what: str) -> Iterator[Any]:
    """The ``ray`` module, connected for the duration of the block.

    ``address``: :data:`LOCAL` starts a Ray instance on this machine with ``num_cpus`` CPUs,
    shut down at the end; ``auto``, ``host:port`` or ``ray://host:port`` joins a running cluster
    (disconnected at the end). When this process has already initialised Ray (a notebook, a
    test), that instance is used as it is and left running.
    """
    ray = require_ray(what)
    if ray.is_initialized():
        yield ray
        return
    address = check_address(address)
    if address not in (LOCAL, "auto"):
        probe(address)
    options: dict[str, Any] = dict(
        include_dashboard=False,
        logging_level=logging.ERROR,  # no banner, no notes on stderr between the results
        log_to_driver=False,  # errors come back through the tasks' results
    )
    try:
        if address == LOCAL:
            ray.init(num_cpus=num_cpus, **options)
        else:
            ray.init(address=address, **options)
    except Exception as exc:  # ConnectionError, RuntimeError, ...: one line, no traceback
        detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        where = "start a local Ray instance" if address == LOCAL else f"connect to Ray at {address}"
        raise RayError(f"cannot {where}: {detail}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


def task_error_cause(exc: BaseException) -> BaseException:
    """The exception a Ray task raised (a ``RayTaskError`` wraps it with the worker's
    traceback in its text), so that it reaches the user as the same one line as without Ray."""
    cause = getattr(exc, "cause", None)
    return cause if isinstance(cause, BaseException) else exc


__all__ = [
    "CONNECT_TIMEOUT",
    "LOCAL",
    "RAY_EXTRA",
    "RayError",
    "check_address",
    "check_ray",
    "probe",
    "ray_session",
    "require_ray",
    "task_error_cause",
]
