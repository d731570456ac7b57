"""Expected answers of retrieval tasks: the value, its canonical text, the spellings accepted for it, and the forms.

Accepted variants are compared after `normalise` (strip, case-fold, inner whitespace collapsed):
a number 9.99 is accepted as "9.99", "9.990", "$9.99", "£9.99", "€9.99" or "9.99 USD"-style with a
currency code; an integer as "12" or "12.0"; a string as itself (case-insensitive); a bool as
true/yes or false/no; none as "none". Beyond the listed variants, a number is accepted in any of its
forms (`number_in`): with thousands separators ("1,299"), trailing zeros ("12.00"), a currency sign
before it or a code after it, or one unit word after it ("45 minutes" for 45, "2 stops" for 2).
docs/language.md (Tasks) says the same; each task's record lists its `forms`.
"""

from __future__ import annotations

import re
from typing import Any

from fsmc.semantics import format_value

CURRENCY_SIGNS = ("$", "£", "€")
CURRENCY_CODES = ("USD", "GBP", "EUR")


# a number as people write it: an optional currency sign, digits (thousands separated by commas or not), decimals,
# then an optional currency code or one unit word
NUMBER_RE = re.compile(r"^(?P<sign>[$£€])?\s*(?P<num>-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)"
                       r"(?:\s*(?P<tail>[^\W\d_]+))?$")
NUMBER_FORMS = ["the number: 12, 12.0, 1,299", "with a currency sign or code: $12, 12 USD",
                "with one unit word after it: 12 minutes"]


def normalise(text: str) -> str:
    return " ".join(text.strip().casefold().split())


def number_in(text: str) -> float | None:
    """The number a written answer states in one of a number's forms, or None."""
    found = NUMBER_RE.match(normalise(text))
    if found is None or (found["sign"] and found["tail"] and found["tail"].upper() not in CURRENCY_CODES):
        return None
    return float(found["num"].replace(",", ""))


def matches(accepted: list[str], given: str) -> bool:
    """Whether `given` is one of the `accepted` spellings, or (where the answer is a number, `accepted[0]` its plain
    spelling) states the same number in another of its forms."""
    if normalise(given) in accepted:
        return True
    want = number_in(accepted[0]) if accepted else None
    got = number_in(given) if want is not None else None
    return got is not None and round(got, 6) == round(want or 0.0, 6)


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
    numeric = isinstance(value, int | float) and not isinstance(value, bool)
    forms = NUMBER_FORMS if numeric else ["the text, in any case and spacing"]
    return {"value": json_value, "text": text, "variants": variants(value), "forms": forms}


def accepts(record: dict[str, Any], given: str) -> bool:
    return matches(record.get("variants", []), given)
