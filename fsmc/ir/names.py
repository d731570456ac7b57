"""The name a site calls itself, from its spec's app identifier: one fact that the importer and the generator share."""

from __future__ import annotations

import re

__all__ = ["site_name"]

_APP_SUFFIX = re.compile(r"(?i)[\s_-]*(app|application|web|site|website|clone|demo|project)$")


def site_name(name: str) -> str:
    """The name a site calls itself, from an app identifier: "Code_Hosting-GitHub_app" -> "GitHub".

    AutoWebWorld names apps `<Category>-<Brand>_app`: the part after the last dash is the brand. A brand in
    mixed case (GitHub, LinkedIn) keeps its case; one written in lower or upper case is capitalised.
    """
    base = name.strip().rsplit("-", 1)[-1] if "-" in name.strip(" -") else name.strip()
    base = _APP_SUFFIX.sub("", base) or base
    parts = [p for p in re.split(r"[_\s]+", base) if p]
    if not parts:
        return "Home"
    def cased(p: str) -> str:  # a brand's own case (GitHub, JD.com) stays; a word in one case is capitalised
        mixed = any(c.isupper() for c in p[1:]) and any(c.islower() for c in p)
        acronym = p.isupper() and len(p.split('.')[0]) <= 4
        return p if mixed or acronym else p.capitalize()

    return " ".join(cased(p) for p in parts)
