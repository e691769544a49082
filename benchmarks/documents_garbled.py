"""How well documents._garbled tells a PDF's garbled text (fonts without a Unicode map,
whose codes come out as other letters or as symbols) from real text, and the letter-pair
table it uses.

Real text: the translations in this machine's gettext catalogs (``/usr/share/locale/*/
LC_MESSAGES/*.mo``: real sentences people wrote, in dozens of Latin-script languages; the
English ones are their ``msgid``). The languages are split in two by their order in
:data:`LANGUAGES`: the table and the threshold come from the first half (``fit``), the
figures to report are the second half's (``held-out``), whose text the table never saw.

Lists of names that must stay readable: the countries and languages in each Latin-script
locale ICU has.

Garbled text: each real chunk shifted by every Caesar offset (1-25: a font whose codes are
its glyphs' order in a shifted alphabet, "Wkh txlfn"), and by 10 random letter
substitutions (a subset font's own order). Near-misses that must stay readable: random
base64 and hex (keys, hashes, certificates in a PDF), and identifiers.

    .venv/bin/python benchmarks/documents_garbled.py           # the figures
    .venv/bin/python benchmarks/documents_garbled.py --table   # the table, for _garbled
"""

from __future__ import annotations

import base64
import collections
import gettext
import math
import random
import string
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memtrails.importers.documents import _garbled

_NAMES = "en fr de es pt it nl sv da fi pl cs sk hu ro hr sl tr id vi et lv lt eu ca gl af sq"
LANGUAGES = [*_NAMES.split(), "ms", "tl", "cy", "ga", "is", "eo", "uz", "az"]
FIT, HELD_OUT = LANGUAGES[0::2], LANGUAGES[1::2]
CHUNK = 600  # characters: about a paragraph, a short PDF's page at least
_LOCALE = Path("/usr/share/locale")


def catalog_text(language: str, limit: int = 30_000) -> str:
    """Up to ``limit`` characters of ``language``'s translations (English: the msgids)."""
    folder = "fr" if language == "en" else language
    out: list[str] = []
    size = 0
    for path in sorted((_LOCALE / folder / "LC_MESSAGES").glob("*.mo")):
        try:
            with path.open("rb") as f:
                catalog = gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        for key, value in catalog.items():
            if not (isinstance(key, str) and key and isinstance(value, str)):
                continue
            if language != "en" and value == key:
                continue  # not translated
            said = key if language == "en" else value
            out.append(said)
            size += len(said)
        if size > limit:
            break
    return " ".join(out)[:limit]


def chunks(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text) - CHUNK + 1, CHUNK)]


def shifted(text: str, k: int) -> str:
    def one(c: str) -> str:
        if "a" <= c <= "z":
            return chr((ord(c) - 97 + k) % 26 + 97)
        if "A" <= c <= "Z":
            return chr((ord(c) - 65 + k) % 26 + 65)
        return c

    return "".join(map(one, text))


def substituted(text: str, seed: int) -> str:
    order = list(string.ascii_lowercase)
    random.Random(seed).shuffle(order)
    table = str.maketrans(string.ascii_lowercase + string.ascii_uppercase, "".join(order) * 2)
    return text.translate(table)


def table(languages: list[str]) -> str:
    """The letter-pair table: for each pair (a letter or a word's edge, then another), how
    unlikely it is, pooled over ``languages`` (each weighing the same), as one base-36 digit
    (half bits: -2 log2 P(b | a), at most 35)."""
    pool: collections.Counter[str] = collections.Counter()
    for language in languages:
        counts = _garbled.pairs(catalog_text(language))
        total = sum(counts.values())
        for pair, n in counts.items():
            pool[pair] += n / total
    digits = []
    for a in _garbled.ALPHABET:
        row = sum(pool[a + b] for b in _garbled.ALPHABET)
        for b in _garbled.ALPHABET:
            p = (pool[a + b] + 0.001) / (row + 0.001 * len(_garbled.ALPHABET))
            digits.append("0123456789abcdefghijklmnopqrstuvwxyz"[min(35, round(-2 * math.log2(p)))])
    return "".join(digits)


def near_misses(seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(20):
        blob = base64.b64encode(rng.randbytes(450)).decode()
        out.append("\n".join(blob[i : i + 64] for i in range(0, len(blob), 64)))
        out.append(" ".join(rng.randbytes(16).hex() for _ in range(20)))
        out.append(
            " ".join(
                "".join(rng.choice(string.ascii_uppercase + string.digits) for _ in range(8))
                for _ in range(60)
            )
        )
    return out


def name_lists() -> list[str]:
    """The names of the world's countries and languages in each Latin-script locale ICU
    has (lists of names, not prose; a locale without its own names gives ISO codes)."""
    import icu

    countries = icu.Locale.getISOCountries()
    languages = icu.Locale.getISOLanguages()[:150]
    out = []
    for code in sorted(k for k in icu.Locale.getAvailableLocales() if "_" not in k):
        locale = icu.Locale(code)
        names = [icu.Locale("und_" + c).getDisplayCountry(locale) for c in countries]
        names += [icu.Locale(x).getDisplayLanguage(locale) for x in languages]
        text = "\n".join(names)
        if sum(c.isascii() and c.isalpha() for c in text) * 2 >= len(text):
            out.append(text)
    return out


def evaluate(languages: list[str]) -> dict[str, float]:
    real = garbled = real_flagged = garbled_caught = 0
    worst: list[tuple[float, str]] = []
    for language in languages:
        parts = chunks(catalog_text(language))
        for chunk in parts:
            real += 1
            real_flagged += _garbled.unreadable(chunk) is not None
        for chunk in parts[:10]:
            for bad in [shifted(chunk, k) for k in range(1, 26)] + [
                substituted(chunk, s) for s in range(10)
            ]:
                garbled += 1
                caught = _garbled.unreadable(bad) is not None
                garbled_caught += caught
                if not caught:
                    worst.append((_garbled.bits_per_pair(bad), language))
    misses = near_misses()
    flagged_misses = sum(_garbled.unreadable(m) is not None for m in misses)
    print(f"  garbled chunks missed, by language: {collections.Counter(lang for _, lang in worst)}")
    return {
        "real chunks": real,
        "real flagged (false positives)": real_flagged,
        "garbled chunks": garbled,
        "garbled caught": garbled_caught,
        f"random strings flagged (of {len(misses)})": flagged_misses,
    }


def main() -> None:
    if "--table" in sys.argv:
        print(table(FIT))
        return
    names = name_lists()
    flagged = sum(_garbled.unreadable(n) is not None for n in names)
    print(
        f"lists of country and language names (ICU, Latin-script locales): {flagged} of {len(names)} flagged"
    )
    for name, languages in (("fit", FIT), ("held-out", HELD_OUT)):
        print(name, " ".join(languages))
        for key, value in evaluate(languages).items():
            print(f"  {key}: {value}")


if __name__ == "__main__":
    main()
