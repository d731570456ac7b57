"""Expected answers of retrieval tasks: the value, its canonical text, and the spellings accepted for it.

Accepted variants are compared after `normalise` (strip, case-fold, inner whitespace collapsed):
a number 9.99 is accepted as "9.99", "9.990", "$9.99", "£9.99", "€9.99" or "9.99 USD"-style with a
currency code; an integer as "12" or "12.0"; a string as itself (case-insensitive); a bool as
true/yes or false/no; none as "none".
"""

from __future__ import annotations

from typing import Any

from fsmc.semantics import format_value

CURRENCY_SIGNS = ("$", "£", "€")
CURRENCY_CODES = ("USD", "GBP", "EUR")


def normalise(text: str) -> str:
    return " ".join(text.strip().casefold().split())


def _number_variants(v: float) -> list[str]:
    two = f"{v:.2f}"
    texts = [two, f"{v:.3f}", repr(v)]
    if v == int(v):
        texts += [str(int(v)), f"{int(v)}.0"]
    out = list(texts)
    for t in texts[:1] + texts[3:4]:
        out += [f"{sign}{t}" for sign in CURRENCY_SIGNS] + [f"{t} {code}" for code in CURRENCY_CODES]
    return out


def variants(value: Any) -> list[str]:
    """Every accepted spelling of an answer, normalised, deduplicated, in a fixed order."""
    if value is None:
        texts = ["none"]
    elif isinstance(value, bool):
        texts = ["true", "yes"] if value else ["false", "no"]
    elif isinstance(value, int):
        texts = [str(value), f"{value}.0"]
    elif isinstance(value, float):
        texts = _number_variants(value)
    elif isinstance(value, tuple):
        texts = [format_value(value)]
    else:
        texts = [str(value)]
    out: list[str] = []
    for t in texts:
        n = normalise(t)
        if n not in out:
            out.append(n)
    return out


def answer_record(value: Any) -> dict[str, Any]:
    """{"value", "text", "variants"} for an answer evaluated in a goal state."""
    text = "none" if value is None else format_value(value)
    json_value = [list(x) if isinstance(x, tuple) else x for x in value] if isinstance(value, tuple) else value
    return {"value": json_value, "text": text, "variants": variants(value)}


def accepts(record: dict[str, Any], given: str) -> bool:
    return normalise(given) in record.get("variants", [])
