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
    return any(key == k for key, _ in m)


def map_set(m: tuple[tuple[Any, Any], ...], k: Any, v: Any, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    rest = [(a, b) for a, b in m if a != k]
    if v is not None:
        rest.append((k, v))
    return tuple(sorted(rest, key=lambda kv: key(kv[0])))


def map_remove(m: tuple[tuple[Any, Any], ...], k: Any) -> tuple[tuple[Any, Any], ...]:
    return tuple((a, b) for a, b in m if a != k)


def map_add(m: tuple[tuple[Any, Any], ...], k: Any, by: int, lo: int, hi: int, key: Sorter) -> tuple[tuple[Any, Any], ...]:
    """`m[k] += by`: an absent entry counts as 0; above hi clamps, below lo removes the entry."""
    current = map_get(m, k)
    value = (0 if current is None else current) + by
    return map_set(m, k, None if value < lo else min(value, hi), key)


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
