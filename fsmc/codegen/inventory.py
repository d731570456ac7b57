"""What the site generator had to invent for a spec because the spec did not say it: the report of a build."""

from __future__ import annotations

from dataclasses import dataclass

from fsmc import ir
from fsmc.codegen.present import site_kind, site_title
from fsmc.codegen.words import looks_like_identifier


@dataclass(frozen=True)
class Inventory:
    """Counts of presentation made from identifiers rather than read from the spec."""

    site_name: str  # the name the site shows
    named_from_id: bool  # that name was made from an identifier (`Code_Hosting-GitHub_app` -> "GitHub")
    pages: int
    page_titles: int  # pages without a title of their own
    actions: int
    action_labels: int  # actions without a label of their own
    fields: int  # text fields whose label comes from their selector
    tables: int
    rows: int
    kind: str  # the kind of site the banner and footer copy was chosen for ("other": none)

    def summary(self) -> str:
        parts = []
        if self.named_from_id:
            parts.append(f'the name "{self.site_name}"')
        if self.page_titles:
            parts.append(f"{self.page_titles}/{self.pages} page titles")
        if self.action_labels:
            parts.append(f"{self.action_labels}/{self.actions} action labels")
        if self.fields:
            parts.append(f"{self.fields} field labels")
        said = "words for " + ", ".join(parts) if parts else "no words (the spec names everything)"
        data = f"{self.tables} tables, {self.rows} rows" if self.tables else "no data: pages show their controls only"
        copy = f"{self.kind} copy" if self.kind != "other" else "no banner (no kind of site recognised)"
        return f"{said}; {copy}; {data}"


def invented(spec: ir.Spec) -> Inventory:
    actions = [a for p in spec.pages for a in p.actions]
    title = spec.site.title or ""
    fields = sum(1 for a in actions for op in a.gui if op.op == "type" and not (a.label and "{" in a.label))
    return Inventory(site_name=site_title(spec), named_from_id=not title or looks_like_identifier(title) or title.islower(),
                     pages=len(spec.pages), page_titles=sum(not p.title for p in spec.pages),
                     actions=len(actions), action_labels=sum(not a.label for a in actions), fields=fields,
                     tables=len(spec.tables), rows=sum(len(t.rows) for t in spec.tables), kind=site_kind(spec))


__all__ = ["Inventory", "invented"]
