"""What a batch will take from this machine, estimated before it starts: a request the
machine cannot hold is refused with its estimate instead of failing hours later.

The figures per game are measured (`bollesim run -P historical -n 1000000` and the peak
memory of a chunk) and rounded up.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from bollesim.errors import UsageError
from bollesim.inputs import size_text

DISK_BYTES_PER_GAME = 12
"""games.parquet holds about 9.6 bytes a game (zstd); a saved chunk about as much."""
MEMORY_BYTES_PER_GAME = 700
"""Peak memory per game of a chunk in flight: results, DataFrame, Arrow table, chunk file."""
MEMORY_SHARE = 0.8
"""The share of the available memory a batch may plan to use."""


def free_disk(path: Path) -> int:
    """Free bytes on the filesystem that holds `path` (or its nearest existing parent)."""
    path = Path(os.path.abspath(path))
    while not path.exists():
        path = path.parent
    return shutil.disk_usage(path).free


def available_memory() -> int | None:
    """Memory the kernel can give without swapping (MemAvailable), None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def check_memory(needed: int, what: str, fix: str = "ask for fewer games") -> None:
    """UsageError if `needed` bytes are more than this machine can spare."""
    available = available_memory()
    if available is not None and needed > MEMORY_SHARE * available:
        raise UsageError(
            f"{what} needs about {size_text(needed)} of memory, this machine has "
            f"{size_text(available)} available: {fix}"
        )


def check_disk(folder: Path, games_to_play: int, games_in_file: int) -> None:
    """UsageError if the saved chunks of `games_to_play` games plus the final games.parquet
    of `games_in_file` games will not fit on the disk that holds `folder`."""
    needed = (games_to_play + games_in_file) * DISK_BYTES_PER_GAME
    free = free_disk(folder)
    if needed > free:
        raise UsageError(
            f"{games_in_file:,} games need about {size_text(needed)} of disk for {folder} "
            f"(the chunks while playing, then games.parquet), {size_text(free)} free: "
            "play fewer games, or write to a larger disk"
        )
