"""Length-prefixed frames over a stream socket: an 8-byte big-endian length, then that many bytes.

The worker reads and writes with blocking calls; the request process with the event loop's socket calls
(`loop.sock_*`), which take the running loop at each call, so a worker's socket is tied to no loop.
"""

from __future__ import annotations

import asyncio
import socket
import struct

_LENGTH = struct.Struct("!Q")
# A frame's payload is a pickled job or outcome: the request body bounds it (4.5 MB by default), and a
# response is bounded by the payload limit; 1 GiB stops a corrupt length from asking for all memory.
MAX_FRAME_BYTES = 1 << 30


class Closed(Exception):
    """The other end closed the socket (a worker that exited or was killed)."""


def header(size: int) -> bytes:
    """The length prefix of a frame of `size` bytes."""
    return _LENGTH.pack(size)


def _size(prefix: bytes | bytearray) -> int:
    (size,) = _LENGTH.unpack(prefix)
    if size > MAX_FRAME_BYTES:
        raise Closed(f"a frame of {size:,} bytes is over the {MAX_FRAME_BYTES:,}-byte bound")
    return int(size)


def send_frame(sock: socket.socket, payload: bytes) -> None:
    """Write one frame (blocking)."""
    sock.sendall(header(len(payload)))
    sock.sendall(payload)


def receive_frame(sock: socket.socket) -> bytearray:
    """Read one frame (blocking).

    :raises Closed: the socket closed before a whole frame arrived.
    """
    return _read_exactly(sock, _size(_read_exactly(sock, _LENGTH.size)))


def _read_exactly(sock: socket.socket, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        count = sock.recv_into(view[received:], size - received)
        if not count:
            raise Closed("the socket closed")
        received += count
    return buffer


async def send_frame_async(sock: socket.socket, payload: bytes) -> None:
    """Write one frame on the running loop (the socket is non-blocking)."""
    loop = asyncio.get_running_loop()
    await loop.sock_sendall(sock, header(len(payload)))
    await loop.sock_sendall(sock, payload)


async def receive_frame_async(sock: socket.socket) -> bytearray:
    """Read one frame on the running loop.

    :raises Closed: the socket closed before a whole frame arrived.
    """
    return await _read_exactly_async(sock, _size(await _read_exactly_async(sock, _LENGTH.size)))


async def _read_exactly_async(sock: socket.socket, size: int) -> bytearray:
    loop = asyncio.get_running_loop()
    buffer = bytearray(size)
    view = memoryview(buffer)
    received = 0
    while received < size:
        count = await loop.sock_recv_into(sock, view[received:])
        if not count:
            raise Closed("the socket closed")
        received += count
    return buffer
