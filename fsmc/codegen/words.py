"""Words a person reads, inferred from a spec's identifiers: `ACT_NEW_PR_SUBMIT` -> "Submit new pull request".

Deterministic and model-free: identifiers are split (underscores, dashes, dots, camelCase), the words code uses
and people do not (`act`, `btn`, `input`) are dropped, known abbreviations are spelled out, and a verb that ends
an action's name leads its label. Everything a generated site shows that the spec does not spell out goes
through here, so that no identifier of the spec is ever visible.
"""

from __future__ import annotations

import re

from fsmc.ir.names import site_name

# Words that only code uses: dropped wherever they stand in an identifier.
CODE_WORDS = {"act", "action", "btn", "button", "cta", "el", "elem", "element", "js", "ui", "fsm", "ctl", "ctrl",
              "dom", "div", "span", "wrapper", "container", "handler", "trigger", "widget", "val", "value", "op"}
# Words that name the kind of control, not what it is about: dropped at the end ("repo-search-input").
CONTROL_WORDS = {"input", "field", "box", "checkbox", "check", "toggle", "switch", "radio", "dropdown", "select",
                 "selector", "picker", "slider", "link", "tab", "item", "row", "card", "icon", "menu", "list", "area",
                 "textarea", "text", "option", "opt", "id", "ids", "key", "modal", "dialog", "panel", "section", "page"}
ABBREVIATIONS = {
    "pr": "pull request", "prs": "pull requests", "repo": "repository", "repos": "repositories", "msg": "message",
    "msgs": "messages", "qty": "quantity", "addr": "address", "img": "image", "imgs": "images", "pwd": "password",
    "pw": "password", "num": "number", "no": "number", "nav": "", "dm": "direct message", "dms": "direct messages",
    "org": "organization", "orgs": "organizations", "acct": "account", "notif": "notification",
    "notifs": "notifications", "prefs": "preferences", "pref": "preference", "desc": "description",
    "auth": "sign-in", "tz": "time zone", "dob": "date of birth", "cfg": "settings", "config": "settings",
    "conf": "settings", "info": "details", "stats": "statistics", "avg": "average", "min": "minimum",
    "max": "maximum", "cat": "category", "cats": "categories", "prod": "product", "prods": "products",
    "txn": "transaction", "txns": "transactions", "tx": "transaction", "amt": "amount", "bal": "balance",
    "dept": "department", "emp": "employee", "mgr": "manager", "req": "request", "reqs": "requests",
    "ws": "workspace", "chan": "channel", "ch": "channel", "btc": "bitcoin", "eth": "ether", "fav": "favourite",
    "favs": "favourites", "sub": "subscription", "subs": "subscriptions", "pic": "picture", "pics": "pictures",
    "attr": "attribute", "attrs": "attributes", "loc": "location", "dest": "destination", "src": "source",
    "dep": "departure", "arr": "arrival", "pax": "passengers", "cal": "calendar", "evt": "event",
    "evts": "events", "doc": "document", "docs": "documents", "dir": "folder", "pkg": "package",
    "pkgs": "packages", "env": "environment", "envs": "environments", "ci": "CI", "api": "API", "url": "URL",
    "urls": "URLs", "faq": "FAQ", "sku": "SKU", "cvv": "CVV", "vip": "VIP", "id_": "ID", "ok": "OK",
    "2fa": "two-factor sign-in", "mh": "mental health", "ins": "insurance", "mfa": "two-factor sign-in", "wiki": "wiki", "readme": "README",
}
# Verbs that end an action's name in code ("new_pr_submit") and lead its label in words ("Submit new pull request").
VERBS = {"submit", "open", "close", "click", "select", "apply", "save", "send", "toggle", "confirm", "cancel",
         "delete", "remove", "add", "create", "edit", "update", "clear", "reset", "search", "filter", "sort",
         "view", "show", "hide", "expand", "collapse", "start", "stop", "star", "unstar", "follow", "unfollow",
         "like", "unlike", "merge", "approve", "reject", "archive", "download", "upload", "share", "book",
         "pay", "checkout", "login", "logout", "signin", "signout", "next", "prev", "previous", "back", "go",
         "accept", "decline", "dismiss", "enable", "disable", "join", "leave", "invite", "reply", "forward",
         "pin", "unpin", "mute", "unmute", "subscribe", "unsubscribe", "buy", "order", "rate", "review", "allow",
         "deny", "grant", "block", "unblock", "freeze", "unfreeze", "transfer", "exchange", "attach", "discard"}
SPELLED = {"login": "Sign in", "logout": "Sign out", "signin": "Sign in", "signout": "Sign out",
           "prev": "Previous", "checkout": "Check out"}
# Places one searches in, not things one searches for: "Search inbox", not "Search inboxes".
PLACES = {"inbox", "mail", "site", "store", "shop", "catalog", "catalogue", "web", "all", "everything", "help", "docs",
          "workspace", "drive", "library", "archive", "marketplace", "map", "maps"}
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_IDENTIFIER = re.compile(r"_|^#|^\w+(?:\.\w+)+$|^[A-Z0-9]+(?:[-_][A-Z0-9]+)+$|\{|\}|^[a-z0-9]+(?:-[a-z0-9]+)+$")


def split(identifier: str) -> list[str]:
    """The lower-case words of an identifier: `repo-search-input`, `repoSearch`, `REPO_SEARCH` alike."""
    text = re.sub(r"\{[^}]*\}", " ", identifier)
    text = _CAMEL.sub(" ", text)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", text) if w]


def looks_like_identifier(text: str) -> bool:
    """Text written as code: underscores, a leading `#`, dots, camelCase, ALL_CAPS_WITH_SEPARATORS, braces."""
    return bool(_IDENTIFIER.search(text.strip()))


def _spell(ws: list[str]) -> list[str]:
    out: list[str] = []
    for w in ws:
        spelled = ABBREVIATIONS.get(w, w)
        out.extend(spelled.split() if spelled else [])
    return out


def _sentence(ws: list[str]) -> str:
    text = " ".join(ws)
    return text[:1].upper() + text[1:]


def content_words(identifier: str, keep_control: bool = False) -> list[str]:
    """The words of an identifier that say what it is about, abbreviations spelled out."""
    ws = [w for w in split(identifier) if w not in CODE_WORDS]
    while not keep_control and len(ws) > 1 and ws[-1] in CONTROL_WORDS:
        ws.pop()
    if not keep_control and len(ws) > 1 and ws[0] in ("input", "field", "btn", "link", "tab", "page"):
        ws.pop(0)
    return _spell(ws)


def phrase(identifier: str, fallback: str = "") -> str:
    """A noun phrase for a variable, field, page or column: `repo_filter_private` -> "Repository filter private"."""
    ws = content_words(identifier)
    return _sentence(ws) if ws else fallback


def plural(word: str) -> str:
    if word.endswith("y") and not word.endswith(("ay", "ey", "oy", "uy")):
        return word[:-1] + "ies"
    return word if word.endswith("s") else word + ("es" if word.endswith(("sh", "ch", "x")) else "s")


# Words a form's fields repeat from the form's own name: "login-username" is the sign-in form's "Username".
FORM_WORDS = {"login", "signin", "signup", "register", "registration"}


def field_phrase(identifier: str) -> str:
    """A text field's label: a search box searches its things ("repo-search-input" -> "Search repositories"), a
    sign-in form's field is what it asks ("login-username" -> "Username")."""
    ws = content_words(identifier)
    while len(ws) > 1 and ws[0] in FORM_WORDS:
        ws.pop(0)
    if "search" in ws and len(ws) > 1:
        rest = [w for w in ws if w not in ("search", "query", "q", "term", "terms", "keyword", "keywords")]
        if rest:
            last = rest[-1] if rest[-1] in PLACES else plural(rest[-1])
            return _sentence(["search", *rest[:-1], last])
    return _sentence(ws) if ws else "Your answer"


# How AutoWebWorld names the ways to the same move (`_DIRECT`, `_HOVER`, `_MENU`): not what the move does.
METHOD_WORDS = {"direct", "hover", "menu", "dropdown", "checkbox", "slider", "via", "alt", "alternative", "shortcut",
                "keyboard", "click", "btn", "button", "link"}


def action_phrase(identifier: str, fallback: str = "Continue", page: str = "") -> str:
    """A label for an action: the verb first ("ACT_NEW_PR_SUBMIT" -> "Submit new pull request"); the words it
    shares with its page at its start ("ACT_REPOS_SORT" on the repositories page) and the way it is done
    (`_HOVER`) are left out where something remains."""
    raw = [w for w in split(identifier) if w not in CODE_WORDS]
    here = set(_spell(split(page))) | set(split(page))
    while len(raw) > 1 and raw[-1] in METHOD_WORDS:
        raw.pop()
    stripped = raw
    initials = "".join(w[0] for w in split(page))
    while len(stripped) > 1 and (stripped[0] in here or ABBREVIATIONS.get(stripped[0], stripped[0]) in here
                                 or (len(initials) > 1 and stripped[0] == initials)):  # "MS" on MESSAGE_SCHEDULE
        stripped = stripped[1:]
    if not (len(stripped) == 1 and stripped[0] in VERBS):  # "CARD_FREEZE" stays "Freeze card"
        raw = stripped
    elif len(initials) > 1 and raw[0] == initials:  # "MS_SUBMIT" on MESSAGE_SCHEDULE: "Submit message schedule"
        raw = [*split(page), *stripped]
    while len(raw) > 1 and raw[-1] in CONTROL_WORDS - {"select", "toggle", "switch", "check"}:
        raw.pop()
    if len(raw) > 2 and raw[-1] in VERBS and raw[-2] in ("into", "to", "in", "on", "the"):
        pass  # "scroll into view": the last word is no verb here
    elif len(raw) > 1 and raw[-1] in VERBS and raw[0] not in VERBS:
        raw = [raw[-1], *raw[:-1]]
    if raw and raw[0] in SPELLED:
        head = SPELLED[raw[0]]
        rest = _spell(raw[1:])
        return " ".join([head, *rest]) if rest else head
    ws = _spell(raw)
    if len(ws) >= 2 and ws[0] == "go" and ws[1] != "to":
        ws = ["go", "to", *ws[1:]]
    return _sentence(ws) if ws else fallback


def option_phrase(identifier: str) -> str:
    """What a filter or option control stands for: the words after `filter`/`sort`/`by` ("Private")."""
    ws = [w for w in split(identifier) if w not in CODE_WORDS]
    while len(ws) > 1 and ws[-1] in CONTROL_WORDS:
        ws.pop()
    for marker in ("by", "filter", "sort", "only", "show", "toggle", "switch", "enable", "disable"):
        if marker in ws[:-1]:
            ws = ws[len(ws) - ws[::-1].index(marker):]
            break
    return _sentence(_spell(ws))


def menu_option(selector: str, opener: str) -> str:
    """An option of a drop-down, from its selector without what it shares with the opener's:
    ("repos-sort-updated-desc", "repos-sort-dropdown") -> "Updated, newest first"."""
    ws, head = split(selector), split(opener)
    while len(ws) > 1 and head and ws[0] == head[0]:
        ws, head = ws[1:], head[1:]
    ws = [w for w in ws if w not in CODE_WORDS and w not in ("option", "item", "menu", "dropdown")] or ws
    order = {"desc": "high to low", "asc": "low to high"}
    if ws[-1] in order and len(ws) > 1:
        time_like = ws[-2] in ("updated", "created", "date", "time", "newest", "recent", "pushed", "modified")
        tail = ("newest first" if ws[-1] == "desc" else "oldest first") if time_like else order[ws[-1]]
        return _sentence(_spell(ws[:-1])) + ", " + tail
    return _sentence(_spell(ws))


MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
_DATE_PART = re.compile(r"(?i)(?:^|[^a-z])(year|month|day|date|hour|minute|min)s?[-_](\d{1,4})$")


def date_part(selector: str) -> str | None:
    """A date picker's cell, from its selector: `.year-2025` -> "2025", `.month-10` -> "October",
    `.hour-10` -> "10:00", `.minute-30` -> ":30"; None for any other selector."""
    m = _DATE_PART.search(selector.strip())
    if m is None:
        return None
    part, n = m.group(1).lower(), int(m.group(2))
    if part == "month" and 1 <= n <= 12:
        return MONTHS[n - 1]
    if part == "hour":
        return f"{n:02d}:00"
    if part in ("minute", "min"):
        return f":{n:02d}"
    return str(n)


def value_words(value: str) -> str:
    """A literal value written as code, in words: `USER_ANY` -> "Any user", `in_progress` -> "In progress"."""
    ws = split(value)
    if len(ws) >= 2 and ws[-1] == "any":
        ws = ["any", *ws[:-1]]
    return _sentence(_spell(ws)) if ws else value


__all__ = ["action_phrase", "content_words", "date_part", "field_phrase", "menu_option", "plural", "looks_like_identifier", "option_phrase", "phrase", "site_name",
           "split", "value_words"]
