"""Parquet and Feather / Arrow IPC files read a record batch at a time, with their expansion bounded.

Both formats compress (dictionary and run-length encodings, zstd, lz4): a file of a few megabytes can
declare billions of rows. Batches are decoded one at a time and their Arrow size counted, so a file
that expands past :func:`~rankmeter.io.validate.expansion_limit` (``RANKMETER_MAX_GZIP_RATIO`` times its
size, at least 64 MiB) stops with a :class:`~rankmeter.errors.PolicyError` after at most one batch
past the limit, whatever its size on disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rankmeter.errors import LimitError
from rankmeter.io.validate import expansion_limit, max_gzip_ratio

_BATCH_ROWS = 1 << 16


def _batches(source: str, fmt: str) -> tuple[Any, Iterator[Any]]:
    """The schema and the record batches of a Parquet or Feather file."""
    if fmt == "parquet":
        import pyarrow.parquet as pq

        parquet = pq.ParquetFile(source)
        return parquet.schema_arrow, parquet.iter_batches(batch_size=_BATCH_ROWS)
    import pyarrow as pa

    try:
        reader = pa.ipc.open_file(pa.memory_map(source))
        return reader.schema, (reader.get_batch(i) for i in range(reader.num_record_batches))
    except pa.ArrowInvalid:
        pass
    try:  # the Arrow IPC stream format (no footer)
        stream = pa.ipc.open_stream(pa.memory_map(source))
        return stream.schema, iter(stream)
    except pa.ArrowInvalid:  # Feather version 1 (uncompressed: no larger in memory than on disk)
        import pyarrow.feather as feather

        table = feather.read_table(source)
        return table.schema, iter(table.to_batches())


def read_batches_bounded(source: str, fmt: str) -> Any:
    """A pyarrow Table of a Parquet (``fmt="parquet"``) or Feather / Arrow IPC (``"feather"``) file.

    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> path = os.path.join(tempfile.mkdtemp(), "run.parquet")
    >>> pq.write_table(pa.table({"qid": ["1"], "docno": ["d"], "score": [1.0]}), path)
    >>> read_batches_bounded(path, "parquet").column("docno").to_pylist()
    ['d']
    >>> os.unlink(path)
    """
    import pyarrow as pa

    limit = expansion_limit(source)
    schema, batches = _batches(source, fmt)
    kept = []
    total = 0
    for batch in batches:
        total += batch.nbytes
        if total > limit:
            raise LimitError(
                f"{source}: expands to more than {limit} bytes in memory, {max_gzip_ratio()} times its size "
                "(set RANKMETER_MAX_GZIP_RATIO to raise the limit)"
            )
        kept.append(batch)
    return pa.Table.from_batches(kept, schema=schema)
