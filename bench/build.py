"""Seconds per site for `fsmc build`: generation and bundling timed separately.

    python bench/build.py            # the example specs, then 20 synthetic specs built in a row
    python bench/build.py --synthetic 5 --out /tmp/bench_sites
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fsmc.codegen import bundle, generate
from fsmc.formats import load, load_text

ROOT = Path(__file__).resolve().parent.parent


def synthetic_spec(seed: int) -> str:
    """A small shop-like spec: a catalogue page with filters, sorting and paging, a detail page and a cart."""
    rng = random.Random(seed)
    n = rng.randint(8, 40)
    brands = [f"b{i}" for i in range(rng.randint(2, 5))]
    rows = "\n".join(f'  ("i{i:02d}", "Item {i} {rng.choice(["lamp", "chair", "desk", "rug", "shelf"])}", '
                     f'"{rng.choice(brands)}", {rng.randint(5, 300)}.{rng.randint(0, 99):02d})' for i in range(n))
    brand_set = ", ".join(f'"{b}"' for b in brands)
    pages = -(-n // 6)
    return f'''
site synth{seed} {{ title "Synthetic {seed}" reference "synthetic-{seed}.example" entry list terminal done }}
enum Sort {{ "relevance", "price_asc", "price_desc" }}
table items(id: str, name: str, brand: str, price: num) key id {{
{rows}
}}
session {{ var cart: map<ref items, int[1..3]> = {{}} }}
page list "Catalogue" {{
  var brand: {{{brand_set}}}? = none
  var sort: Sort = "relevance"
  var pg: int[1..{pages}] = 1
  var item: ref items = "i00"
  view hits = items as it where brand == none or it.brand == brand
    order by it.price when sort == "price_asc", it.price desc when sort == "price_desc" page pg size 6
  action filter(b: {{{brand_set}}}?) "Brand {{b}}" {{ require b != brand brand := b pg := 1 gui {{ select "brand" "{{b}}" }} }}
  action order(o: Sort) {{ require o != sort sort := o pg := 1 gui {{ select "sort" "{{o}}" }} }}
  action next {{ require pg < pages(hits) pg += 1 gui {{ click "next" }} }}
  action prev {{ require pg > 1 pg -= 1 gui {{ click "prev" }} }}
  action open(i: ref items) "Open {{i.name}}" {{ require i in hits item := i goto detail carry item gui {{ click "card-{{i}}" }} }}
  action cart {{ goto basket gui {{ click "nav-cart" }} }}
}}
page detail "Item" {{
  var item: ref items = "i00"
  action add "Add to cart" {{ require len(cart) < 3 or item in cart cart[item] += 1 gui {{ click "add" }} }}
  action back {{ goto list gui {{ click "nav-back" }} }}
}}
page basket "Cart" {{
  view lines = items as it where it in cart
  action plus(i: ref items) {{ require i in cart cart[i] += 1 gui {{ click "plus-{{i}}" }} }}
  action minus(i: ref items) {{ require i in cart cart[i] -= 1 gui {{ click "minus-{{i}}" }} }}
  action buy {{ require len(cart) > 0 goto done gui {{ click "buy" }} }}
  action shop {{ goto list gui {{ click "nav-shop" }} }}
}}
page done "Thanks" {{ }}
'''


def time_one(spec: object, out: Path) -> tuple[float, float]:
    start = time.perf_counter()
    project = generate(spec, out)  # type: ignore[arg-type]
    gen = time.perf_counter() - start
    return gen, bundle(project.root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--synthetic", type=int, default=20, help="synthetic specs to build in a row (default 20)")
    parser.add_argument("--out", help="where to write the sites (default: a temporary folder)")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="fsmc-bench-"))
    examples = sorted((ROOT / "specs").glob("*.fsm")) + [ROOT / "tests" / "fixtures" / "mini.fsm"]
    print(f"{'site':<16}{'generate s':>12}{'bundle s':>10}")
    for path in examples:
        gen, bun = time_one(load(path), out)
        print(f"{path.stem:<16}{gen:>12.3f}{bun:>10.3f}")
    gens, buns = [], []
    wall = time.perf_counter()
    for seed in range(args.synthetic):
        gen, bun = time_one(load_text(synthetic_spec(seed), f"<synthetic {seed}>"), out)
        gens.append(gen)
        buns.append(bun)
        print(f"{f'synth{seed}':<16}{gen:>12.3f}{bun:>10.3f}")
    wall = time.perf_counter() - wall
    if gens:
        print(f"{args.synthetic} synthetic specs in a row: {wall:.1f} s in all; per site "
              f"generate {statistics.mean(gens):.3f} s (max {max(gens):.3f}), "
              f"bundle {statistics.mean(buns):.3f} s (max {max(buns):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
