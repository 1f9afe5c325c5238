"""The local endpoint's data kept between runs of `fileapi run`, as DynamoDB Local's `-dbPath` keeps its own.

moto holds DynamoDB, S3 and SQS in memory. When the endpoint stops (Ctrl-C, SIGTERM, or its parent gone) it
pickles those services' backends to one file in the state folder, written aside and then renamed, so that a
stop part-way leaves the last whole file; when it starts it loads that file. So usage, keys, webhooks, uploads,
operations and their results, recovery codes and queued messages survive a restart. A file written by another
moto version, or one that cannot be read, is set aside (`.unreadable`) and the run starts empty, saying so.
The file is the developer's own (mode 0600 in their state folder): loading it runs no code but moto's classes.
"""

from __future__ import annotations

import copyreg
import io
import os
import pickle
import sys
import threading
from pathlib import Path
from typing import Any

STATE_FILE = "endpoint-state.pickle"
SERVICES = ("dynamodb", "s3", "sqs")
# Locks and conditions (an SQS queue's) cannot be pickled: each is stored as a new one of its kind.
_FRESH_LOCKS: dict[type, Any] = {
    threading.Condition: lambda _: (threading.Condition, ()),
    type(threading.RLock()): lambda _: (threading.RLock, ()),
    type(threading.Lock()): lambda _: (threading.Lock, ()),
}


def _moto_version() -> str:
    import moto

    return str(moto.__version__)


def save_state(path: Path) -> int:
    """Write the DynamoDB, S3 and SQS backends of this process's moto to `path` (atomically); the bytes written."""
    from moto.backends import get_backend

    backends = {
        service: {account: dict(regions.items()) for account, regions in get_backend(service).items()}  # type: ignore[call-overload]
        for service in SERVICES
    }
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = {**copyreg.dispatch_table, **_FRESH_LOCKS}
    pickler.dump({"moto": _moto_version(), "backends": backends})
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "wb", opener=lambda name, flags: os.open(name, flags, 0o600)) as file:
        file.write(buffer.getbuffer())
    os.replace(partial, path)
    return buffer.tell()


def load_state(path: Path) -> bool:
    """Install the backends saved in `path` into this process's moto; False when there is no file, or it is set
    aside as unreadable (written by another moto version, or damaged)."""
    if not path.is_file():
        return False
    try:
        saved = pickle.loads(path.read_bytes())  # noqa: S301 - the developer's own file, written by save_state
        if saved.get("moto") != _moto_version():
            raise ValueError(f"written by moto {saved.get('moto')}, this is {_moto_version()}")
        _install(saved["backends"])
    except Exception as exc:  # any failure to read it: start empty rather than not at all
        aside = path.with_name(path.name + ".unreadable")
        os.replace(path, aside)
        print(f"fileapi: the saved local data could not be read ({exc}); starting empty ({aside})", file=sys.stderr)
        return False
    return True


def _install(backends: dict[str, dict[str, dict[str, Any]]]) -> None:
    from moto.backends import get_backend

    for service, accounts in backends.items():
        service_backends = get_backend(service)  # type: ignore[call-overload]
        for account, regions in accounts.items():
            account_backends = service_backends[account]
            for region, backend in regions.items():
                dict.__setitem__(account_backends, region, backend)
