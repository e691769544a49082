"""How a record's time (``export_dates.text_ms``) reads days as other locales write them.

Node writes the days (``benchmarks/dates_intl.mjs SEED``: 84 locales, 12 forms, 8 seeded
instants); each is read in UTC and counted right (the instant it names), day only (its day,
the clock lost), none (no date) or wrong. Of the wrong ones, those whose day and month are
swapped are counted apart: a numeric day written day first ("03/05/2024", en-GB) that
``Date.parse`` reads month first, which no reading of the value alone can tell.

``--world``: the wider battery (``dates_intl_world.mjs SEED``): every locale this Node knows
in its default calendar, the other calendars (Buddhist, Japanese, Persian, Islamic, Hebrew,
ROC), other digits and eras; counted by group, and apart for a calendar other than the
Gregorian (a day there must be converted or refused, never read as a Gregorian year).

    .venv/bin/python benchmarks/dates_intl.py [SEED] [--show] [--world]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

os.environ["TZ"] = "UTC"
time.tzset()

from memtrails.export_dates import text_ms  # noqa: E402 (after the zone is set)


def main() -> None:
    seed = next((a for a in sys.argv[1:] if a.isdigit()), "7")
    here = Path(__file__).parent
    world = "--world" in sys.argv
    script = here / ("dates_intl_world.mjs" if world else "dates_intl.mjs")
    out = subprocess.run(["node", str(script), seed], capture_output=True, check=True, text=True)
    counts: Counter[str] = Counter()
    groups: Counter[tuple[str, str]] = Counter()
    shown = []
    for case in json.loads(out.stdout):
        got = text_ms(case["text"])
        if got == case["wall"]:
            kind = "right"
        elif got is None:
            kind = "none"
        elif got == case["day"]:
            kind = "day_only"
        else:
            read = datetime.fromtimestamp(got / 1000, UTC)
            meant = datetime.fromtimestamp(case["wall"] / 1000, UTC)
            swapped = (read.year, read.month, read.day) == (meant.year, meant.day, meant.month)
            kind = "wrong_day_month_swapped" if swapped else "wrong"
            if not swapped or world:
                shown.append((case["loc"], case["form"], case["text"], read.isoformat()))
        counts[kind] += 1
        if world:
            group = case["group"] if case["gregorian"] else f"{case['group']}:{case['calendar']}"
            groups[group, kind.removesuffix("_day_month_swapped")] += 1
    for kind in ("right", "day_only", "none", "wrong_day_month_swapped", "wrong"):
        print(f"{kind:24} {counts[kind]}")
    for group in sorted({g for g, _ in groups}):
        row = " ".join(f"{k}={groups[group, k]}" for k in ("right", "day_only", "none", "wrong"))
        print(f"  {group:20} {row}")
    if "--show" in sys.argv:
        for row in shown:
            print(*row, sep="\t")
    print(json.dumps({"seed": int(seed), "world": world, **counts}))


if __name__ == "__main__":
    main()
