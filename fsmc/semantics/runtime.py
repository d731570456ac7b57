"""Helpers the compiled expressions and effects call at run time; values are canonical tuples."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Sorter = Callable[[Any], Any]


def norm_set(items: Any, key: Sorter) -> tuple[Any, ...]:
    return tuple(sorted(set(items), key=key))


def norm_map(pairs: Any, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    return tuple(sorted(dict(pairs).items(), key=lambda kv: key(kv[0])))


def set_add(s: tuple[Any, ...], x: Any, key: Sorter) -> tuple[Any, ...]:
    return s if x in s else tuple(sorted((*s, x), key=key))


def set_remove(s: tuple[Any, ...], x: Any) -> tuple[Any, ...]:
    return tuple(e for e in s if e != x)


def map_get(m: tuple[tuple[Any, Any], ...], k: Any) -> Any:
    for key, value in m:
        if key == k:
            return value
    return None


def map_has(m: tuple[tuple[Any, Any], ...], k: Any) -> bool:
    for key, _ in m:  # noqa: SIM110 - a loop, not any() over a generator: the search calls this per move
        if key == k:
            return True
    return False


def map_set(m: tuple[tuple[Any, Any], ...], k: Any, v: Any, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    """`m` with entry `k` set to `v` (none removes it), kept in the keys' order.

    `m` is canonical (its keys distinct and in order), so an entry already there keeps its place and a new
    one goes after every key that sorts before or with it, where sorting the entries again would put it.
    """
    for i, (a, _) in enumerate(m):
        if a == k:
            return m[:i] + m[i + 1:] if v is None else (*m[:i], (k, v), *m[i + 1:])
    return m if v is None else map_insert(m, k, v, key)


def map_insert(m: tuple[tuple[Any, Any], ...], k: Any, v: Any, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    """`m` with the entry (k, v) for a key it lacks, after every key that sorts before or with `k`."""
    rank, i = key(k), 0
    while i < len(m) and key(m[i][0]) <= rank:
        i += 1
    return (*m[:i], (k, v), *m[i:])


def map_remove(m: tuple[tuple[Any, Any], ...], k: Any) -> tuple[tuple[Any, Any], ...]:
    for i, (a, _) in enumerate(m):
        if a == k:
            return m[:i] + map_remove(m[i + 1:], k)
    return m


def map_add(m: tuple[tuple[Any, Any], ...], k: Any, by: int, lo: int, hi: int, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    """`m[k] += by`: an absent entry counts as 0; above hi clamps, below lo removes the entry."""
    for i, (a, current) in enumerate(m):
        if a == k:
            value = (0 if current is None else current) + by
            return m[:i] + m[i + 1:] if value < lo else (*m[:i], (k, min(value, hi)), *m[i + 1:])
    value = 0 + by
    return m if value < lo else map_insert(m, k, min(value, hi), key)


def contains_text(haystack: Any, needle: Any) -> bool:
    if haystack is None or needle is None:
        return False
    return str(needle).lower() in str(haystack).lower()


def sort_key(v: Any) -> tuple[bool, Any]:
    """Row sort key for views: none first, then values in natural order."""
    return (v is not None, v)


NAMESPACE: dict[str, Any] = {
    "_norm_set": norm_set,
    "_norm_map": norm_map,
    "_set_add": set_add,
    "_set_remove": set_remove,
    "_map_get": map_get,
    "_map_has": map_has,
    "_map_set": map_set,
    "_map_remove": map_remove,
    "_map_add": map_add,
    "_contains_text": contains_text,
    "_sort_key": sort_key,
}
