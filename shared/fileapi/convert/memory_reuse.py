"""Keep the memory an image conversion frees for the next one, instead of handing it back to the kernel.

Decoding a 2 MP JPEG and encoding it as AVIF or WebP allocates and frees 20-45 MB. By default Pillow
frees its image blocks at once and glibc's malloc returns large blocks to the kernel (blocks over its
mmap threshold are unmapped on free, the heap top is trimmed), so every conversion takes its memory
from the kernel again: 4,000-11,000 page faults, each a fresh zeroed page, about a tenth of the CPU
time of a 2 MP JPEG -> AVIF or WebP conversion (`python -m bench.image encoders`). With the settings
below a repeated conversion takes a few hundred.

It is switched on by the first AVIF or WebP encoding of a process (`image_io.save_image`), not for every
image: a process that keeps its freed memory peaks higher on a large input with several passes (the 50 MP
barcode read of `make bench` measured +217 MiB above its start with it, against +168 MiB without).

Pillow keeps up to PILLOW_BLOCKS_KEPT freed image blocks (16 MiB each by default); glibc serves blocks
under 32 MiB from its heap and keeps up to 128 MiB free at the heap top. A process then stays at the
resident size of its largest recent conversion, which the function's memory size (1769 MB) allows.
"""

from __future__ import annotations

import ctypes
import os

PILLOW_BLOCKS_KEPT = 4
MMAP_THRESHOLD_BYTES = 32 * 1024 * 1024  # glibc's largest allowed value (DEFAULT_MMAP_THRESHOLD_MAX, 64-bit)
TRIM_THRESHOLD_BYTES = 128 * 1024 * 1024
_M_TRIM_THRESHOLD = -1  # mallopt parameters (malloc.h)
_M_MMAP_THRESHOLD = -3


_kept = False


def keep_freed_memory() -> None:
    """Set Pillow's block cache and, under glibc, malloc's thresholds (process-wide, once)."""
    global _kept
    if _kept:
        return
    _kept = True
    from PIL import _imaging  # Pillow's core, which Image.core names (PILLOW_BLOCKS_MAX at start-up does the same)

    if _imaging.get_blocks_max() < PILLOW_BLOCKS_KEPT:
        _imaging.set_blocks_max(PILLOW_BLOCKS_KEPT)
    if _glibc():
        mallopt = ctypes.CDLL(None).mallopt
        mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
        mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES)
        mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES)


def _glibc() -> bool:
    try:
        return os.confstr("CS_GNU_LIBC_VERSION") is not None
    except (ValueError, OSError, AttributeError):  # not a glibc system, or no confstr
        return False
