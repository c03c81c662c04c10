"""Ids: the one id type, :class:`~rankmeter.ids.column.IdColumn`, and every operation on ids.

The ground floor: every reader hands its id columns here
(:func:`~rankmeter.ids.convert.as_ids`) and every later layer reads them
through these modules, each with one job:

- :mod:`~rankmeter.ids.column`: the type (UTF-8 buffers in Arrow's layout, or codes into a dictionary);
- :mod:`~rankmeter.ids.text`: UTF-8 buffers to and from NumPy strings;
- :mod:`~rankmeter.ids.integers`: integer ids, coded by value;
- :mod:`~rankmeter.ids.arrow`: pyarrow columns, their buffers lent;
- :mod:`~rankmeter.ids.convert`: any reader's column as an ``IdColumn``;
- :mod:`~rankmeter.ids.intern`: codes into a sorted vocabulary, lookups;
- :mod:`~rankmeter.ids.order`: string-order sort keys, ranks and codes;
- :mod:`~rankmeter.ids.buffers`: byte reads and exact equality;
- :mod:`~rankmeter.ids.hashing`: 64-bit keys of ids and of (query, id) pairs;
- :mod:`~rankmeter.ids.match`: the exact (query, document) join of a run with its qrels;
- :mod:`~rankmeter.ids.duplicates`: repeated (query, document) pairs.
"""
