"""How data and state read to a person: column labels and formats, pictures, and the site's copy (banner, footer).

Everything here is decided once in Python and handed to the site as data; the components only apply it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from fsmc import ir
from fsmc.codegen.app_images import picture_column
from fsmc.codegen.words import content_words, looks_like_identifier, site_name, split
from fsmc.types import domains as T

TITLE_NAMES = ("title", "name", "label", "subject", "headline", "number", "code")
PRICE_NAMES = ("price", "total", "fare", "cost", "amount", "subtotal")  # the price of the row
MONEY_NAMES = (*PRICE_NAMES, "economy", "premium", "business", "first", "deposit", "fee", "balance")  # amounts of money
HIDDEN_NAMES = ("tags", "keywords", "password", "search_terms")
# Names a person would use for common short variable and column names.
WORDS = {"qty": "Quantity", "pax": "Passengers", "dest": "To", "origin": "From", "minutes": "Duration",
         "seats_left": "Seats left", "depart": "Departs", "arrive": "Arrives", "pg": "Page", "page_no": "Page",
         "sort": "Sort by", "via": "Via", "born": "Born", "placed": "Placed", "notify": "Updates by",
         "method": "Delivery", "card": "Payment", "address": "Ship to", "party": "Travellers",
         "seats": "Seats", "sizes": "Size", "gift": "Gift wrap", "fare": "Fare", "cabin": "Cabin", "day": "Date"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_TIME = re.compile(r"^\d{1,2}:\d{2}$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}$")


def humanise(name: str) -> str:
    """An identifier in plain words: code words dropped, abbreviations spelled out ("repo_count" -> "Repository count")."""
    ws = content_words(name, keep_control=True)
    return (" ".join(ws).capitalize() if ws else re.sub(r"[_\-]+", " ", name).strip().capitalize())


def word(name: str) -> str:
    """What a person calls a variable or column: a known word, else the name in plain words."""
    if name in WORDS:
        return WORDS[name]
    ws = content_words(name, keep_control=True)
    while len(ws) > 1 and ws[-1] in ("id", "ids", "key", "keys", "ref"):
        ws.pop()  # "starred_ids" -> "Starred", "current_user_id" -> "Current user"
    return " ".join(ws).capitalize() if ws else humanise(name)


def title_index(t: ir.Table) -> int:
    """The column that names a row: a title-like column, else a string key, else the first text column."""
    for name in TITLE_NAMES:
        for i, c in enumerate(t.columns):
            if c.name == name and c.type == "str":
                return i
    cols = [c.name for c in t.columns]
    if t.key in cols and t.columns[cols.index(t.key)].type == "str":
        return cols.index(t.key)
    return next((i for i, c in enumerate(t.columns) if c.type == "str" and c.name != t.key), 0)


def price_index(t: ir.Table) -> int:
    for name in PRICE_NAMES:
        for i, c in enumerate(t.columns):
            if c.type == "num" and c.name == name:
                return i
    return -1


def row_table(spec: ir.Spec, t: ir.Type) -> str | None:
    """The table whose rows a value of type t names: a reference's, or that of a choice of text whose every value is
    a key of one table (an imported world's `selected_therapist_id`, set from the rows it lists)."""
    t = T.strip_optional(t)
    if isinstance(t, ir.RefType):
        return t.table
    if not isinstance(t, ir.ChoiceType) or not t.values:
        return None
    for table in spec.tables:
        key = [c.name for c in table.columns].index(table.key)
        if set(t.values) <= {str(r[key]) for r in table.rows}:
            return table.name
    return None


def column_format(t: ir.Table, i: int) -> str:
    """text | money | rating | duration | stops | count | number | bool | date | datetime | time | ref | hidden."""
    c = t.columns[i]
    values = [r[i] for r in t.rows]
    # a picture's path (text) is shown as the row's picture, not as text; the scan of the rows only for text columns
    if c.name in HIDDEN_NAMES or (c.type == "str" and picture_column(t) == i):
        return "hidden"
    if c.type.startswith("ref:"):
        return "ref"
    if c.type == "bool":
        return "bool"
    if c.type == "num" and c.name.endswith(("_mb", "_kb", "_gb", "_km", "_kg")):
        return "unit"
    if c.type == "num":
        if c.name in MONEY_NAMES:
            return "money"
        if c.name in ("rating", "stars", "score"):  # a rating on a scale (4.5 stars), or a count (1200 stars)
            return "rating" if all(isinstance(v, (int, float)) and 0 <= v <= 10 for v in values) else "count"
        return "number"
    if c.type == "int":
        if c.name in ("minutes", "duration", "mins"):
            return "duration"
        return "stops" if c.name == "stops" else "count"
    strs = [v for v in values if isinstance(v, str) and v]
    if strs and all(_DATE.match(v) for v in strs):
        return "date"
    if strs and all(_TIME.match(v) for v in strs):
        return "time"
    if strs and all(_DATETIME.match(v) for v in strs):
        return "datetime"
    return "text"


@dataclass
class ColumnShow:
    """How one column of a table is shown: its label and format (see column_format)."""

    label: str
    fmt: str


def columns_json(t: ir.Table) -> list[dict[str, str]]:
    return [{"label": word(c.name), "fmt": column_format(t, i)} for i, c in enumerate(t.columns)]


def money_columns(t: ir.Table) -> list[int]:
    """Amounts of money other than the row's price (a fare per cabin): shown with their labels."""
    price = price_index(t)
    return [i for i in range(len(t.columns)) if i != price and column_format(t, i) == "money"]


def detail_columns(t: ir.Table, limit: int, must: tuple[int, ...] = ()) -> list[list[int]]:
    """Columns a card or row shows besides title and prices: references first, then the rest in table order.

    Adjacent time columns (departs, arrives) are shown together, as one entry of two indices.
    """
    title, price = title_index(t), price_index(t)
    fmts = [column_format(t, i) for i in range(len(t.columns))]
    skip = {title, price} | {i for i, f in enumerate(fmts) if f in ("hidden", "money")}
    skip |= {i for i, c in enumerate(t.columns) if c.name == t.key}
    order = [i for i in range(len(t.columns)) if fmts[i] == "ref"] + [i for i in range(len(t.columns)) if fmts[i] != "ref"]
    out: list[list[int]] = []
    used: set[int] = set()
    for i in order:
        if i in skip or i in used or len(out) >= limit:
            continue
        if fmts[i] == "time" and i + 1 < len(t.columns) and fmts[i + 1] == "time":
            out.append([i, i + 1])
            used |= {i, i + 1}
        else:
            out.append([i])
            used.add(i)
    for i in must:
        if i not in used and i not in (title, price):
            out.append([i])
    return out


@dataclass
class Pictures:
    """Which tables get a generated picture, and which borrow one from a referenced row."""

    own: set[str] = field(default_factory=set)  # photo-like pictures of their own rows
    logos: set[str] = field(default_factory=set)  # small badges (an airline, a brand)
    borrow: dict[str, int] = field(default_factory=dict)  # table -> column whose referenced row's picture it shows

    def of(self, table: ir.Table) -> dict[str, Any]:
        """{"col": -1 own | i referenced | -2 none, "style": photo | logo}."""
        if table.name in self.own:
            return {"col": -1, "style": "photo"}
        if table.name in self.borrow:
            col = self.borrow[table.name]
            target = table.columns[col].type[4:]
            return {"col": col, "style": "logo" if target in self.logos else "photo"}
        return {"col": -2, "style": ""}


def decide_pictures(spec: ir.Spec, given: frozenset[str] = frozenset()) -> Pictures:
    """Priced goods are pictured (not priced timetables: a flight is not a thing to look at), and so are the
    tables whose pictures the world gives (`given`); a table with a reference to a pictured one borrows its
    picture; else a reference to a small table that no session variable points at (an airline, a brand) is
    shown as that row's logo."""
    def goods(t: ir.Table) -> bool:
        timetable = any(column_format(t, i) == "time" for i in range(len(t.columns)))
        return price_index(t) >= 0 and not timetable and len(t.rows) <= 2000

    pics = Pictures(own={t.name for t in spec.tables if goods(t) or t.name in given})
    personal = set()
    for v in spec.session:
        base = v.type.inner if isinstance(v.type, ir.OptionalType) else v.type
        if isinstance(base, ir.RefType):
            personal.add(base.table)
    sizes = {t.name: len(t.rows) for t in spec.tables}
    for t in spec.tables:
        if t.name in pics.own:
            continue
        refs = [(i, c.type[4:]) for i, c in enumerate(t.columns) if c.type.startswith("ref:")]
        photo = next((i for i, target in refs if target in pics.own), None)
        if photo is not None:
            pics.borrow[t.name] = photo
            continue
        logo = next((i for i, target in refs if target not in personal and sizes.get(target, 99) <= 12
                     and target != t.name), None)
        if logo is not None:
            pics.borrow[t.name] = logo
            pics.logos.add(t.columns[logo].type[4:])
    return pics


# ---------------------------------------------------------------- the site's copy
def site_title(spec: ir.Spec) -> str:
    """The name the site shows: its title where the spec gives one in words, else one made from its app name."""
    title = spec.site.title or ""
    if title and not looks_like_identifier(title) and not title.islower():
        return title
    return site_name(title or spec.site.name)


# The kinds of site whose copy fits, each with the words that give it away (first match wins; a shop is told by
# its cart before any word is read, so a shop's payment page does not make it a bank).
KINDS = (
    ("code", r"\b(repo|repos|repository|repositories|pull|pr|prs|commit|commits|branch|branches|github|gitlab|"
             r"bitbucket|merge|fork|forks|gist|codebase)\b"),
    ("chat", r"\b(slack|discord|channel|channels|chat|chats|workspace|dm|dms|thread|threads|teams|whatsapp|telegram)\b"),
    ("mail", r"\b(mail|email|emails|inbox|compose|outbox|mailbox|gmail|outlook|webmail)\b"),
    ("travel", r"\b(flight|flights|hotel|hotels|trip|trips|travel|booking|bookings|airport|airbnb|rental|stay|stays|"
               r"itinerary|expedia)\b"),
    ("finance", r"\b(bank|banking|balance|transfer|transfers|stock|stocks|crypto|wallet|invest|investing|trading|"
                r"portfolio|loan|loans|budget|paypal|robinhood|coinbase)\b"),
    ("food", r"\b(recipe|recipes|restaurant|restaurants|menu|meal|meals|food|dish|dishes|delivery|ubereats|doordash)\b"),
    ("social", r"\b(post|posts|feed|friend|friends|follower|followers|linkedin|twitter|facebook|instagram|reddit|"
               r"tweet|tweets|connections)\b"),
    ("shop", r"\b(product|products|cart|checkout|shop|store|amazon|ebay|catalog|catalogue)\b"),
)


def _spec_words(spec: ir.Spec) -> str:
    names = [spec.site.name, spec.site.title or ""] + [t.name for t in spec.tables] + [p.name for p in spec.pages]
    names += [a.name for p in spec.pages for a in p.actions] + [v.name for p in spec.pages for v in p.vars]
    return " ".join(" ".join(split(n)) for n in names)


# AutoWebWorld names an app `<Category>-<Brand>_app`: the category alone says the kind, where it says one.
CATEGORIES = (
    ("shop", r"commerce|marketplace|storefront|retail|shopping"),
    ("code", r"code|git\b"),
    ("chat", r"chat|messaging|meetings|collaboration|conferencing"),
    ("mail", r"email.client|webmail|mail.client|\bmail\b"),
    ("travel", r"flight|travel|hotel|booking"),
    ("finance", r"bank|finance|payment|trading|crypto|invest"),
    ("social", r"social|microblogging|community"),
    ("food", r"food|recipe|restaurant|grocery"),
)


def app_category(spec: ir.Spec) -> str | None:
    """The category part of an app name (`Code_Hosting-GitHub_app` -> "code hosting"), if it has one."""
    name = spec.site.title or spec.site.name
    if "-" not in name.strip(" -"):
        return None
    return " ".join(split(name.strip().rsplit("-", 1)[0])) or None


def site_kind(spec: ir.Spec) -> str:
    """code | chat | mail | travel | finance | food | social | shop | other: only to choose copy that fits.

    An app's category decides alone (a category no kind fits, such as "helpdesk ticketing", gets no domain
    copy at all rather than a guess); a spec without one is read by its words."""
    category = app_category(spec)
    if category is not None:
        return next((kind for kind, pattern in CATEGORIES if re.search(pattern, category)), "other")
    has_cart = any(isinstance(T.strip_optional(v.type), ir.MapType) for v in spec.session)
    words = _spec_words(spec)
    hits = {kind: len(re.findall(pattern, words)) for kind, pattern in KINDS}
    if has_cart and hits["shop"]:
        return "shop"
    best = max(KINDS, key=lambda k: hits[k[0]])[0]
    return best if hits[best] else ("shop" if has_cart else "other")


# Copy per kind of site; "other" has no banner at all rather than words that fit no site.
COPY: dict[str, dict[str, Any]] = {
    "shop": {"banner": "Free delivery on orders over {c}50 · Easy 30-day returns · Secure checkout",
             "help": ["Delivery", "Returns", "Size guide", "Contact us"], "tagline": "Quality picked by people who use it.",
             "summary": "Order summary", "done": "Thank you for your order. A confirmation is on its way to your inbox."},
    "travel": {"banner": "Flexible fares available · No booking fees · 24/7 support",
               "help": ["Manage booking", "Baggage", "Check-in", "Contact us"], "tagline": "Travel made simple.",
               "summary": "Your trip", "done": "You're all set. Your e-ticket is on its way to your inbox."},
    "mail": {"banner": "Your mailbox, organised · Spam protection is on",
             "help": ["Getting started", "Keyboard shortcuts", "Privacy", "Contact us"],
             "tagline": "Mail that stays out of your way.", "summary": "Details", "done": "Done."},
    "code": {"banner": "",
             "help": ["Docs", "Status", "Security", "Contact support"], "tagline": "Where software is built together.",
             "summary": "About", "done": "Done. Your changes are saved."},
    "chat": {"banner": "",
             "help": ["Help centre", "Keyboard shortcuts", "Privacy", "Contact us"],
             "tagline": "Where your team talks.", "summary": "Details", "done": "Done."},
    "finance": {"banner": "Your money is protected · Two-factor sign-in is on",
                "help": ["Fees", "Security", "Support", "Contact us"], "tagline": "Your money, clearly.",
                "summary": "Summary", "done": "Done. A confirmation has been sent to you."},
    "food": {"banner": "Fresh picks every day · Free delivery on your first order",
             "help": ["Delivery areas", "Allergens", "Help", "Contact us"], "tagline": "Good food, close by.",
             "summary": "Your order", "done": "Thank you. Your order is on its way."},
    "social": {"banner": "",
               "help": ["Help centre", "Safety", "Privacy", "Contact us"], "tagline": "Stay close to the people you know.",
               "summary": "Details", "done": "Done."},
    "other": {"banner": "",
              "help": ["Help centre", "Privacy", "Terms", "Contact us"], "tagline": "",
              "summary": "Summary", "done": "All done. Thank you."},
}


def site_copy(spec: ir.Spec, title: str, currency: str) -> dict[str, Any]:
    kind = site_kind(spec)
    copy = COPY[kind]
    return {"kind": kind, "banner": copy["banner"].replace("{c}", currency), "help": copy["help"],
            "tagline": copy["tagline"], "summary": copy["summary"], "done": copy["done"],
            "about": ["About us", "Careers", "Press", "Privacy"]}


__all__ = ["ColumnShow", "Pictures", "column_format", "columns_json", "decide_pictures", "detail_columns", "humanise",
           "money_columns", "price_index", "row_table", "site_copy", "site_title", "site_kind", "title_index", "word"]
