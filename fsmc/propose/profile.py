"""What to propose: a description in words, or an AutoWebWorld-style profile (domain, difficulty, page and
action budgets), or both.

A profile is `key=value` pairs separated by commas, or a JSON or TOML file with the same keys:

    --profile "domain=recipe site,difficulty=medium,pages=4,actions=12"
    --profile profile.toml        # domain = "recipe site"  difficulty = "medium"  pages = 4  actions = 12

`domain` is required; `difficulty` is easy, medium or hard (default medium); `pages` and `actions` are the
most the spec may have (checked: P003, P004).
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from fsmc.errors import FsmcError

DIFFICULTIES = {
    "easy": "a short path to each goal: two or three pages, a handful of actions, one form or list",
    "medium": "goals a few steps deep: a list to filter or sort, a detail page, a form with choices, a "
              "confirmation page",
    "hard": "goals many steps deep: filtering, sorting and pagination, state kept across pages (a cart or a "
            "draft), a multi-step form and retrieval questions answered from a view",
}
KEYS = ("domain", "difficulty", "pages", "actions", "description")


class ProfileError(FsmcError, ValueError):
    """A profile that cannot be read, with what is wrong."""


@dataclass(frozen=True)
class Profile:
    domain: str
    difficulty: str = "medium"
    pages: int | None = None
    actions: int | None = None
    description: str = ""

    def describe(self) -> str:
        """The profile in words, as the proposer is asked."""
        parts = [f"A {self.domain} website of {self.difficulty} difficulty: {DIFFICULTIES[self.difficulty]}."]
        if self.pages is not None:
            parts.append(f"At most {self.pages} pages.")
        if self.actions is not None:
            parts.append(f"At most {self.actions} actions (a parameterised action counts once).")
        if self.description:
            parts.append(self.description)
        return " ".join(parts)


def read_profile(given: str) -> Profile:
    """The profile `given` names: a JSON or TOML file, else `key=value,...`; ProfileError saying what is wrong."""
    path = Path(given)
    if path.suffix in (".json", ".toml") or path.is_file():
        return _from_dict(_read_file(path), str(path))
    fields: dict[str, object] = {}
    for item in filter(None, (part.strip() for part in given.split(","))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ProfileError(f"profile: {item!r} is no key=value (keys: {', '.join(KEYS)})")
        fields[key.strip()] = value.strip()
    return _from_dict(fields, "profile")


def _read_file(path: Path) -> dict[str, object]:
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except OSError as err:
        raise ProfileError(f"{path}: cannot read the profile: {err.strerror or err}") from None
    except (ValueError, UnicodeDecodeError) as err:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise ProfileError(f"{path}: the profile is no {path.suffix.lstrip('.').upper() or 'JSON or TOML'}: {err}") \
            from None
    if not isinstance(data, dict):
        raise ProfileError(f"{path}: the profile is no object of {', '.join(KEYS)}")
    return data


def _from_dict(fields: dict[str, object], where: str) -> Profile:
    unknown = sorted(set(fields) - set(KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown key {unknown[0]!r} (keys: {', '.join(KEYS)})")
    if not str(fields.get("domain") or "").strip():
        raise ProfileError(f"{where}: the profile needs a domain (domain=...)")
    difficulty = str(fields.get("difficulty") or "medium")
    if difficulty not in DIFFICULTIES:
        raise ProfileError(f"{where}: difficulty {difficulty!r} is none of {', '.join(DIFFICULTIES)}")
    return Profile(str(fields["domain"]).strip(), difficulty, _count(fields, "pages", where),
                   _count(fields, "actions", where), str(fields.get("description") or ""))


def _count(fields: dict[str, object], key: str, where: str) -> int | None:
    value = fields.get(key)
    if value is None or value == "":
        return None
    try:
        n = int(str(value))
    except ValueError:
        raise ProfileError(f"{where}: {key} must be a whole number, not {value!r}") from None
    if n < 1:
        raise ProfileError(f"{where}: {key} must be at least 1")
    return n
