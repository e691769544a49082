"""How a record's time (``export_dates.text_ms``) reads days as other locales write them.

Node writes the days (``benchmarks/dates_intl.mjs SEED``: 84 locales, 12 forms, 8 seeded
instants); each is read in UTC and counted right (the instant it names), day only (its day,
the clock lost), none (no date) or wrong. Of the wrong ones, those whose day and month are
swapped are counted apart: a numeric day written day first ("03/05/2024", en-GB) that
``Date.parse`` reads month first, which no reading of the value alone can tell.

    .venv/bin/python benchmarks/dates_intl.py [SEED] [--show]
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
    out = subprocess.run(
        ["node", str(here / "dates_intl.mjs"), seed], capture_output=True, check=True, text=True
    )
    counts: Counter[str] = Counter()
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
            if not swapped:
                shown.append((case["loc"], case["form"], case["text"], read.isoformat()))
        counts[kind] += 1
    for kind in ("right", "day_only", "none", "wrong_day_month_swapped", "wrong"):
        print(f"{kind:24} {counts[kind]}")
    if "--show" in sys.argv:
        for row in shown:
            print(*row, sep="\t")
    print(json.dumps({"seed": int(seed), **counts}))


if __name__ == "__main__":
    main()
