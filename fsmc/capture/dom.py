"""What `fsmc import` reads off a captured page's HTML: its title, its links and its forms, each marked hidden or not.

A page is read as it was served (no script runs): an element is hidden when it is in a closed `<details>` (outside
its `<summary>`), a `<template>`, or an element with the `hidden` attribute or an inline `display:none`. A form's
fields are kept with the value the browser would submit for them untouched (`Form.data`), so the query a
submission sends can be computed from the fields an action fills in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_CLASS = re.compile(r"^-?[A-Za-z_][\w-]*$")  # a class CSS names as it is, unescaped
_VOID = frozenset(("area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"))
TEXT_KINDS = frozenset(("text", "search", "email", "url", "tel", "number", "password", "date", "month", "week", "time",
                        "datetime-local", "color", "range"))  # the inputs an agent types into
_UNSENT = frozenset(("submit", "image", "button", "reset", "file"))  # never in the data of a plain submission


@dataclass
class Link:
    href: str  # as written in the page
    text: str = ""
    hidden: bool = False  # in a closed <details> (outside its <summary>), a `hidden` or `display:none` element
    scopes: tuple[str, ...] = ()  # the elements around it, nearest first, as CSS: each class (`td.ticket`), its tag


@dataclass(eq=False)
class Field:
    """A form control: an input, a select, a textarea or a button."""

    tag: str
    attrs: dict[str, str]
    hidden: bool
    form: int | None  # the index of its form in the page, if it is in one
    options: list[tuple[str, bool]] = field(default_factory=list)  # a select's options: value, selected
    text: str = ""  # a textarea's content, a button's or an option's text
    label: str = ""  # the text of its <label> (around it, or naming its id)

    @property
    def name(self) -> str:
        return self.attrs.get("name", "")

    @property
    def kind(self) -> str:
        """`select`, `textarea`, `button`, or the input's type (`text` by default)."""
        if self.tag != "input":
            return self.tag
        return (self.attrs.get("type") or "text").lower()

    @property
    def submits(self) -> bool:
        return self.kind in ("submit", "image") or (self.tag == "button" and
                                                    (self.attrs.get("type") or "submit").lower() == "submit")

    @property
    def blocks_enter(self) -> bool:
        """A single-line text input: Enter in it submits a form that has no submit button and no other such input
        (HTML's implicit submission)."""
        return self.tag == "input" and self.kind in TEXT_KINDS - {"color", "range"}

    @property
    def typed(self) -> bool:
        """An agent can fill it in: a text-like input, a textarea or a select, shown and enabled."""
        return (self.kind in TEXT_KINDS or self.tag in ("textarea", "select")) and not self.hidden \
            and "disabled" not in self.attrs and "readonly" not in self.attrs

    @property
    def shown_name(self) -> str:
        """What a person reads it as: its label, else its aria-label, placeholder or title, else its name in words."""
        for text in (self.label, self.attrs.get("aria-label"), self.attrs.get("placeholder"), self.attrs.get("title")):
            words = " ".join((text or "").split()).rstrip(":*").strip()
            if words:
                return words
        return " ".join(re.split(r"[_\-\s]+", self.name)).strip()

    def value(self) -> str | None:
        """What a plain submission sends for it; None when it sends nothing."""
        if not self.name or "disabled" in self.attrs or self.kind in _UNSENT or self.tag == "button":
            return None
        if self.kind in ("checkbox", "radio"):
            return self.attrs.get("value", "on") if "checked" in self.attrs else None
        if self.tag == "select":
            chosen = [v for v, selected in self.options if selected] or [v for v, _ in self.options[:1]]
            return chosen[-1] if chosen else None
        if self.tag == "textarea":
            return self.text.removeprefix("\r").removeprefix("\n")
        return self.attrs.get("value", "")


@dataclass(eq=False)
class Form:
    attrs: dict[str, str]
    hidden: bool
    fields: list[Field] = field(default_factory=list)

    @property
    def action(self) -> str:
        return self.attrs.get("action", "")

    @property
    def method(self) -> str:
        return (self.attrs.get("method") or "get").upper()

    def describe(self) -> str:
        """How a note names it: `form.filters (GET /zoo/animals)`."""
        tag = "form" + (f"#{self.attrs['id']}" if self.attrs.get("id") else "") \
            + "".join(f".{c}" for c in (self.attrs.get("class") or "").split()[:1])
        return f"{tag} ({self.method} {self.action or 'this page'})"

    def data(self, filled: dict[str, str] | None = None) -> list[tuple[str, str]]:
        """The name-value pairs a submission sends, in the fields' order, with `filled` in place of the defaults."""
        filled = filled or {}
        pairs = []
        for f in self.fields:
            value = f.value()
            if value is not None:
                pairs.append((f.name, filled.get(f.name, value) if f.typed else value))
        return pairs


class PageHtml(HTMLParser):
    """A page's title, links, forms and form controls."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[Link] = []
        self.forms: list[Form] = []
        self.fields: list[Field] = []  # every control of the page, in or out of a form
        self.title = ""
        self._stack: list[tuple[str, bool]] = []  # open elements: tag, hides its content
        self._scopes: list[tuple[str, ...]] = []  # beside each open element: its classes as CSS (`td.ticket`), its tag
        self._open: Link | None = None
        self._text: Field | None = None  # the textarea, button or select whose text is being read
        self._form: int | None = None
        self._in_option = False
        self._in_title = False
        self._label: tuple[str, list[str], list[Field]] | None = None  # the open <label>: its for, its text, controls
        self._labels: dict[str, str] = {}  # a label's text by the id it names

    def _hidden(self) -> bool:
        shown_details = False  # the <details> right around a <summary> shows that summary
        for tag, hides in reversed(self._stack):
            if tag == "summary":
                shown_details = True
            elif hides and not (tag == "details" and shown_details):
                return True
            elif tag == "details":
                shown_details = False
        return False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        style = a.get("style", "").replace(" ", "")
        hides = "hidden" in a or "display:none" in style or tag == "template" or (tag == "details" and "open" not in a)
        if tag not in _VOID:
            self._stack.append((tag, hides))
            self._scopes.append((*(f"{tag}.{c}" for c in a.get("class", "").split() if _CLASS.match(c)), tag))
        self._in_title = self._in_title or tag == "title"
        if tag == "a" and a.get("href"):
            self._open = Link(a["href"], hidden=self._hidden(),
                              scopes=tuple(c for scopes in reversed(self._scopes[:-1]) for c in scopes))
        elif tag == "form" and self._form is None:
            self.forms.append(Form(a, self._hidden()))
            self._form = len(self.forms) - 1
        elif tag in ("input", "select", "textarea", "button"):
            hidden = self._hidden() or (tag == "input" and a.get("type", "").lower() == "hidden")
            control = Field(tag, a, hidden, self._form)
            self.fields.append(control)
            if self._form is not None:
                self.forms[self._form].fields.append(control)
            self._text = control if tag != "input" else None
            if self._label is not None:
                self._label[2].append(control)
        elif tag == "label":
            self._label = (a.get("for", ""), [], [])
        elif tag == "option" and self._text is not None and self._text.tag == "select":
            self._text.options.append((a.get("value", "\0"), "selected" in a))
            self._in_option = True

    def handle_endtag(self, tag: str) -> None:
        self._in_title = self._in_title and tag != "title"
        if tag == "a" and self._open is not None:
            self._open.text = " ".join(self._open.text.split())
            self.links.append(self._open)
            self._open = None
        elif tag == "form":
            self._form = None
        elif tag in ("select", "textarea", "button"):
            self._text = None
        elif tag == "label" and self._label is not None:
            named, parts, inside = self._label
            words = " ".join("".join(parts).split())
            if named:
                self._labels.setdefault(named, words)
            elif len(inside) == 1:
                inside[0].label = words
            self._label = None
        self._in_option = self._in_option and tag not in ("option", "select")
        names = [t for t, _ in self._stack]
        if tag in names:
            del self._stack[len(names) - 1 - names[::-1].index(tag):]
            del self._scopes[len(self._stack):]

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._label is not None and self._text is None:
            self._label[1].append(data)
        if self._open is not None:
            self._open.text += data
        if self._text is None:
            return
        if self._text.tag == "select" and self._in_option and self._text.options[-1][0].startswith("\0"):
            value, selected = self._text.options[-1]  # an option without a value sends its text
            self._text.options[-1] = (value + data, selected)
        elif self._text.tag != "select":
            self._text.text += data

    def close(self) -> None:
        super().close()
        for control in self.fields:
            control.label = control.label or self._labels.get(control.attrs.get("id", ""), "")
            control.options = [(" ".join(v[1:].split()) if v.startswith("\0") else v, s) for v, s in control.options]


def read_page(html: str) -> PageHtml:
    parser = PageHtml()
    parser.feed(html)
    parser.close()
    return parser


__all__ = ["Field", "Form", "Link", "PageHtml", "read_page"]
