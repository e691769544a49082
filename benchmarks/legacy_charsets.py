"""How often a note in a legacy 8-bit code page is read in it: an accuracy table.

Texts written for this table (not the prose memtrails' language models are built from),
short (a word or two: a title, an abbreviation) and long (a sentence or two), each encoded
in the code pages its language is written in, and read back by
``memtrails.importers._legacy_text.utf8_first`` (what a notes folder, a transcript and a
commit message without a charset go through). Run: ``python benchmarks/legacy_charsets.py``.
"""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

from collections import defaultdict

from memtrails.importers._legacy_text import utf8_first

#: (language, code pages, short texts, long texts)
TEXTS: list[tuple[str, tuple[str, ...], list[str], list[str]]] = [
    (
        "French",
        ("cp1252", "mac_roman"),
        ["àéè", "bientôt", "Crêpes", "naïve", "hôpital", "ambiguë"],
        [
            "Rendez-vous à la gare à huit heures, n'oublie pas les billets pour Genève.",
            "La réunion est reportée à mercredi prochain; le président sera présent.",
        ],
    ),
    (
        "German",
        ("cp1252",),
        ["Äpfel", "Öffnungszeiten", "Brötchen", "Fußball", "Bücher"],
        [
            "Der Zug nach München fährt um 9 Uhr, bitte sei pünktlich am Bahnsteig.",
            "Die Kündigung muss schriftlich erfolgen und spätestens Ende Mai eingehen.",
        ],
    ),
    (
        "Spanish",
        ("cp1252",),
        ["pingüino", "Málaga", "camión", "¿Dónde?", "corazón"],
        [
            "La próxima reunión será el jueves en la oficina de Córdoba, a las diez.",
            "No olvides comprar leche, azúcar y pan para el desayuno del niño.",
        ],
    ),
    (
        "Polish",
        ("cp1250", "iso8859_2"),
        ["Wałbrzych", "źródło", "żaba", "ćma", "Szczęście", "Poznań"],
        [
            "Spotkanie zarządu odbędzie się w piątek o dziesiątej w sali konferencyjnej.",
            "Proszę przesłać fakturę za usługi do końca miesiąca na adres księgowości.",
        ],
    ),
    (
        "Czech",
        ("cp1250", "iso8859_2"),
        ["čaj", "Ostrava–Přerov", "šťáva", "kočka", "dveře"],
        [
            "Schůze výboru se koná ve čtvrtek v devět hodin v zasedací místnosti.",
            "Nezapomeň koupit chleba, mléko a máslo, přijdu domů až večer.",
        ],
    ),
    (
        "Hungarian",
        ("cp1250",),
        ["tűz", "gyümölcs", "kőműves", "ő", "fűszer"],
        [
            "A megbeszélés csütörtökön lesz tíz órakor a tárgyalóban, kérlek gyere el.",
            "Holnap reggel elutazom Debrecenbe, csak jövő héten jövök vissza.",
        ],
    ),
    (
        "Russian",
        ("cp1251", "koi8_r", "cp866"),
        ["Привет", "РФ", "ЦБ", "ФСБ", "ЖКХ", "щука", "объём", "лес"],
        [
            "Совещание перенесли на пятницу, просьба подготовить доклад к десяти утра.",
            "Не забудь купить хлеб, молоко и яйца, я вернусь домой поздно вечером.",
        ],
    ),
    (
        "Ukrainian",
        ("cp1251", "koi8_u"),
        ["Житомир", "їдальня", "ґава", "сонце", "Ірпінь"],
        [
            "Нарада відбудеться в четвер о десятій годині в залі засідань.",
            "Не забудь купити хліб і молоко, я повернуся додому пізно ввечері.",
        ],
    ),
    (
        "Greek",
        ("cp1253", "iso8859_7"),
        ["σήμερα", "Πάτρα", "ΔΕΗ", "βιβλίο", "καφές"],
        [
            "Η συνάντηση μεταφέρθηκε για την Παρασκευή στις δέκα το πρωί.",
            "Μην ξεχάσεις να αγοράσεις ψωμί και γάλα, θα γυρίσω αργά το βράδυ.",
        ],
    ),
    (
        "Turkish",
        ("cp1254",),
        ["Eskişehir", "görüşürüz", "kuş", "ılık", "öğle"],
        [
            "Toplantı cuma günü saat onda yapılacak, lütfen raporu hazırlayın.",
            "Ekmek ve süt almayı unutma, akşam eve geç döneceğim.",
        ],
    ),
    (
        "Hebrew",
        ("cp1255",),
        ["בוקר טוב", "ספר", "חתול"],
        ["הפגישה נדחתה ליום שישי בשעה עשר בבוקר.", "אל תשכח לקנות לחם וחלב, אחזור מאוחר."],
    ),
    (
        "Lithuanian",
        ("cp1257",),
        ["šuo", "Marijampolė", "vėjas", "ąsotis"],
        [
            "Susitikimas vyks penktadienį dešimtą valandą posėdžių salėje.",
            "Nepamiršk nupirkti duonos ir pieno, grįšiu vėlai vakare.",
        ],
    ),
]


def rows() -> list[tuple[str, str, str, bool, str]]:
    """Each text read back: (language, code page, short/long, right?, what it read as)."""
    out = []
    for language, pages, short, long in TEXTS:
        for page in pages:
            for size, texts in (("short", short), ("long", long)):
                for text in texts:
                    try:
                        data = text.encode(page)
                    except UnicodeEncodeError:
                        continue
                    read, codec = utf8_first(data)
                    out.append((language, page, size, read == text, f"{read} ({codec})"))
    return out


def main() -> None:
    table: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for language, _page, size, right, read in rows():
        cell = table[(language, _page)]
        k = 0 if size == "short" else 2
        cell[k] += right
        cell[k + 1] += 1
        if not right:
            print(f"  wrong: {language} {_page} {size}: {read}")
    print("| language | code page | short | long |\n|---|---|---|---|")
    total = [0, 0]
    for (language, page), (s, sn, lo, ln) in table.items():
        print(f"| {language} | {page} | {s}/{sn} | {lo}/{ln} |")
        total[0] += s + lo
        total[1] += sn + ln
    print(f"| all | | {total[0]}/{total[1]} | |")


if __name__ == "__main__":
    main()
