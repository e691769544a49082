"""A notes folder's text files in every encoding a notes folder may hold, read as notes:
how many are read right, wrong (mojibake: text that is not what was written), or refused.

Texts written for this table (in none of ``legacy_charsets.py``, ``legacy_short.py`` or
the prose ``_legacy_langs`` is built from), in 21 languages, short (a word or two: a
title, a to-do) and long (a sentence or a few), each encoded in every encoding Python
knows that its language is written in: the Windows code pages 1250-1258, ISO-8859-1 to
-16, KOI8-R and KOI8-U, DOS 866, Mac Roman, Shift_JIS, EUC-JP, EUC-KR, GB18030, Big5,
UTF-16 and UTF-32 without a byte order mark (both byte orders), and UTF-8 with one stray
Latin-1 byte (``é`` pasted into it). Each is read by ``files._text.decode`` as a notes
folder's file is; a read is right when its text is the one written (for the stray byte:
that text with the byte read as its Windows-1252 letter), refused when ``decode`` says
it is no text, else wrong. Run: ``python benchmarks/documents_encodings.py [-v]`` (``-v``
lists each wrong read). ``--random SEED``: short notes made at random of words of five
code pages' languages, ASCII words, numbers, and (Latin pages) signs and units (18°C, ™,
«oui»), 200 a page (seed 1 was looked at while the refusal was tuned; seed 2 run once).
"""

# ruff: noqa: RUF001 (letters of many scripts, on purpose)

from __future__ import annotations

import random
import sys
import unicodedata
from collections import Counter

from legacy_short import encode as written_in  # a sibling script: benchmarks/ is on sys.path

from memtrails.importers.files._doubt import doubt
from memtrails.importers.files._text import decode

_WESTERN = ("cp1252", "iso8859_1", "iso8859_15", "mac_roman")
_CENTRAL = ("cp1250", "iso8859_2", "iso8859_16")
_CYRILLIC = ("cp1251", "koi8_r", "cp866", "iso8859_5")
_WIDE = ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8+stray")

#: (language, encodings beside the wide ones, short texts, long texts)
TEXTS: list[tuple[str, tuple[str, ...], list[str], list[str]]] = [
    (
        "French",
        _WESTERN,
        ["Idées", "à faire", "Été"],
        [
            "Penser à rappeler le plombier avant jeudi; la fuite sous l'évier a empiré.",
            "Recette de la soupe à l'oignon: faire revenir les oignons émincés, ajouter "
            "le bouillon, laisser mijoter vingt minutes, gratiner avec du gruyère râpé.",
        ],
    ),
    (
        "German",
        _WESTERN,
        ["Einkäufe", "Grüße", "Übung"],
        [
            "Morgen früh den Schlüssel beim Hausmeister abholen und die Nebenkosten prüfen.",
            "Für die Wanderung am Wochenende: Rucksack, Wasserflasche, Brötchen, eine "
            "Jacke für den Gipfel und die Karte vom Schwäbischen Albverein mitnehmen.",
        ],
    ),
    (
        "Spanish",
        _WESTERN,
        ["Añadir", "Reunión", "mañana"],
        [
            "Llamar a la señora Núñez para confirmar la cita del miércoles por la tarde.",
            "Ideas para el cumpleaños de Inés: una cena en el jardín, música en vivo, "
            "tarta de limón y una canción que escribió su tío cuando era pequeña.",
        ],
    ),
    (
        "Portuguese",
        _WESTERN,
        ["Lições", "Atenção", "irmão"],
        [
            "Não esquecer de pagar a conta de luz até sexta e ligar para a avó.",
            "As lições de violão começam em março; o professor pediu que cada aluno "
            "traga um caderno, um afinador e as canções que já sabe tocar de cor.",
        ],
    ),
    (
        "Italian",
        _WESTERN,
        ["Città", "perché", "Più tardi"],
        [
            "Ricordarsi di prenotare il treno per Bologna; la riunione è alle undici.",
            "Lista per la settimana: comprare il caffè, portare la bicicletta dal "
            "meccanico, rispondere a Niccolò e finire la relazione entro venerdì.",
        ],
    ),
    (
        "Swedish",
        _WESTERN,
        ["Möte", "Påminnelse", "Årsmöte"],
        [
            "Glöm inte att hämta paketet på posten innan den stänger på lördag.",
            "Till stugan i helgen: sängkläder, tändstickor, fiskespö och kaffe. Någon "
            "måste också kolla vattenpumpen, den läckte förra sommaren.",
        ],
    ),
    (
        "Polish",
        _CENTRAL,
        ["Zakupy świąteczne", "Pożegnanie", "źle"],
        [
            "Zadzwonić do pani Małgorzaty w sprawie umowy najmu przed środą.",
            "Plan na niedzielę: wycieczka rowerowa nad jezioro, obiad u teściów, "
            "wieczorem sprawdzić zadanie domowe Łucji i przygotować się do spotkania.",
        ],
    ),
    (
        "Czech",
        _CENTRAL,
        ["Úkoly", "Příští týden", "Nákup"],
        [
            "Zítra ráno odnést kolo do servisu a vyzvednout léky v lékárně.",
            "Nápady na dovolenou: Šumava v létě, chata u přehrady, výlet na Sněžku "
            "a večer opékání buřtů s dětmi u ohně, pokud nebude pršet.",
        ],
    ),
    (
        "Hungarian",
        _CENTRAL,
        ["Teendők", "Győr", "Születésnap"],
        [
            "Csütörtökön fel kell hívni a fogorvost és időpontot kérni jövő hétre.",
            "Bevásárlólista a hétvégére: kenyér, tojás, túró, paprika, hagyma és egy "
            "üveg bor a vasárnapi ebédhez, amire a szomszédokat is meghívtuk.",
        ],
    ),
    (
        "Romanian",
        ("cp1250", "iso8859_2", "iso8859_16"),
        ["Cumpărături", "Mâine", "Întâlnire"],
        [
            "Trebuie să sun la bancă înainte de vineri pentru cardul nou.",
            "Pentru excursia de la munte: bocanci, o geacă groasă, lanternă și "
            "mâncare pentru două zile; ne întâlnim la gară la ora șapte dimineața.",
        ],
    ),
    (
        "Russian",
        _CYRILLIC,
        ["Заметки", "Список дел", "ок"],
        [
            "Не забыть забрать посылку на почте до субботы и оплатить интернет.",
            "Планы на выходные: съездить на дачу, посадить картошку, починить забор "
            "и позвонить бабушке, у неё в среду день рождения.",
        ],
    ),
    (
        "Ukrainian",
        ("cp1251", "koi8_u", "iso8859_5"),
        ["Нотатки", "Їжа", "Зустріч"],
        [
            "Треба зателефонувати їй у четвер і домовитися про зустріч у кав'ярні.",
            "Список покупок на свято: хліб, сир, яйця, зелень, вишні для пирогів "
            "і подарунок для племінниці, якій виповнюється сім років.",
        ],
    ),
    (
        "Bulgarian",
        ("cp1251", "iso8859_5", "cp866"),
        ["Бележки", "Пазар", "Среща"],
        [
            "Утре сутринта да занеса колата на сервиз и да платя тока.",
            "За почивката на морето: хавлии, слънцезащитен крем, книги за децата "
            "и резервация за хотела в Созопол от петнадесети юли.",
        ],
    ),
    (
        "Greek",
        ("cp1253", "iso8859_7"),
        ["Σημειώσεις", "Αύριο", "Ψώνια"],
        [
            "Να τηλεφωνήσω στον γιατρό για το ραντεβού της Πέμπτης το πρωί.",
            "Για το ταξίδι στη Νάξο: εισιτήρια πλοίου, αντηλιακό, μαγιό και ένα "
            "καλό βιβλίο για τις ζεστές μεσημεριανές ώρες στην παραλία.",
        ],
    ),
    (
        "Turkish",
        ("cp1254", "iso8859_9"),
        ["Notlar", "Yapılacaklar", "Görüşme"],
        [
            "Cuma gününe kadar kira sözleşmesini imzalayıp ev sahibine göndermeliyim.",
            "Hafta sonu için alışveriş listesi: ekmek, peynir, zeytin, domates, çay "
            "ve annemin doğum günü için güzel bir çiçek almayı unutmamak lazım.",
        ],
    ),
    (
        "Hebrew",
        ("cp1255", "iso8859_8"),
        ["רשימות", "קניות", "פגישה מחר"],
        [
            "צריך להתקשר לרופא השיניים ולקבוע תור לשבוע הבא.",
            "לטיול בצפון: מים, כובע, נעלי הליכה, אוכל לשני ימים ומפה של השבילים "
            "ליד הכנרת, ולזכור להזמין מקום בחניון לפני יום חמישי.",
        ],
    ),
    (
        "Arabic",
        ("cp1256", "iso8859_6"),
        ["ملاحظات", "موعد", "قائمة المشتريات"],
        [
            "يجب أن أتصل بالطبيب غدا صباحا لتأكيد الموعد.",
            "خطة عطلة نهاية الأسبوع: زيارة الجدة، شراء الخبز والخضار، وتنظيف "
            "الحديقة قبل وصول الضيوف مساء يوم السبت.",
        ],
    ),
    (
        "Lithuanian",
        ("cp1257", "iso8859_13", "iso8859_4"),
        ["Užrašai", "Pirkiniai", "Susitikimas"],
        [
            "Rytoj reikia paskambinti į banką ir sumokėti už elektrą.",
            "Savaitgalio planai: nuvažiuoti pas močiutę į kaimą, nupirkti duonos, "
            "sūrio ir obuolių, o vakare žiūrėti krepšinio rungtynes su draugais.",
        ],
    ),
    (
        "Vietnamese",
        ("cp1258",),
        ["Ghi chú", "Việc cần làm", "Họp"],
        [
            "Nhớ gọi điện cho mẹ vào tối thứ bảy và mua quà sinh nhật cho em.",
            "Kế hoạch cuối tuần: dọn dẹp nhà cửa, đi chợ mua rau và cá, nấu "
            "canh chua, buổi chiều đưa các con đi công viên gần hồ.",
        ],
    ),
    (
        "Japanese",
        ("shift_jis", "euc_jp"),
        ["メモ", "買い物", "会議の準備"],
        [
            "明日の朝までに報告書を仕上げて、部長にメールで送ること。",
            "週末の予定：土曜日は図書館で本を返して、午後は友達と映画を見に行く。"
            "日曜日は部屋の掃除と洗濯をして、夜は家族と一緒に晩ご飯を食べる。",
        ],
    ),
    (
        "Chinese (simplified)",
        ("gb18030", "gbk"),
        ["笔记", "购物清单", "明天开会"],
        [
            "明天上午十点和王经理开会，记得带上季度报告。",
            "周末计划：星期六去超市买菜，下午陪孩子去公园放风筝；星期天整理书房，"
            "晚上给父母打电话，问问他们下个月来北京的安排。",
        ],
    ),
    (
        "Chinese (traditional)",
        ("big5",),
        ["筆記", "購物清單", "開會"],
        [
            "明天早上九點要去銀行辦理新的信用卡。",
            "週末計畫：星期六去市場買菜，下午帶孩子去圖書館借書；星期天打掃房間，"
            "晚上和朋友一起吃飯，討論下個月去台南旅行的行程。",
        ],
    ),
    (
        "Korean",
        ("euc_kr",),
        ["메모", "장보기", "회의 준비"],
        [
            "내일 아침까지 보고서를 마무리해서 팀장님께 이메일로 보내기.",
            "주말 계획: 토요일에는 도서관에 책을 반납하고 오후에 친구와 영화를 보러 "
            "간다. 일요일에는 방 청소와 빨래를 하고 저녁에는 가족과 함께 밥을 먹는다.",
        ],
    ),
]

_STRAY = "é"  # pasted from a Latin-1 text into a UTF-8 note


def encode(text: str, encoding: str) -> tuple[bytes, str] | None:
    """``text`` as a file in ``encoding`` (and what reading it right gives), or None where
    the encoding cannot hold it."""
    if encoding == "utf-8+stray":
        cut = len(text) // 2
        return (
            text[:cut].encode() + _STRAY.encode("latin-1") + text[cut:].encode(),
            text[:cut] + _STRAY + text[cut:],
        )
    if encoding == "cp1258":
        # As Windows writes Vietnamese: precomposed where the page holds it, else a base
        # letter and combining marks (legacy_short.encode, the same rule).
        data = written_in(text, encoding)
        return None if data is None else (data, text)
    try:
        return text.encode(encoding), text
    except UnicodeEncodeError:
        return None


def rows() -> list[tuple[str, str, str, str, str]]:
    """Each text read back: (language, encoding, short/long, right/wrong/refused, read)."""
    out = []
    for language, pages, short, long in TEXTS:
        for page in (*pages, *_WIDE):
            for size, texts in (("short", short), ("long", long)):
                for text in texts:
                    encoded = encode(text, page)
                    if encoded is None:
                        continue
                    data, expected = encoded
                    decoded = decode(data)
                    if decoded is None or doubt(data, decoded[1]):
                        out.append((language, page, size, "refused", ""))
                        continue
                    read = unicodedata.normalize("NFC", decoded[0].strip())
                    right = read == unicodedata.normalize("NFC", expected)
                    outcome = "right" if right else "wrong"
                    out.append((language, page, size, outcome, f"{read!r} ({decoded[1]})"))
    return out


_RANDOM_WORDS = {
    "cp1252": "café déjà vu Grüße Straße naïve über Müller señor año niño ação coração città "
    "perché Öl Ärger élève garçon hôtel mañana Köln Zürich",
    "cp1250": "Zażółć gęślą jaźń łódź žluťoučký kůň příliš Brno Poznań Kraków Győr műhely szép",
    "cp1251": "Привет мир Москва книга время работа письмо завтра сегодня Київ дякую",
    "cp1253": "Καλημέρα κόσμε Αθήνα βιβλίο σήμερα αύριο ευχαριστώ",
    "cp1255": "שלום עולם ספר מחר היום תודה",
}
_RANDOM_ASCII = (
    "the meeting at notes todo call buy milk send report room price total and or with for"
)
_RANDOM_SIGNS = [
    *("18°C", "5µm", "50€", "£20", "±0,5", "3×4", "10÷2", "m²", "x³", "©", "™", "§ 3", "¶"),
    *("½", "¼", "–", "—", "“ok”", "‘x’", "…", "•", "«oui»", "¿qué?", "¡olé!", "25%", "No.5"),
    *("#3", "(2)"),
]


def random_rows(seed: int) -> list[tuple[str, str, str, str, str]]:
    """Short notes made at random (see the module), read back as :func:`rows` reads."""
    rng = random.Random(seed)
    out = []
    for page, words in _RANDOM_WORDS.items():
        for _ in range(200):
            parts = []
            for _ in range(rng.randint(1, 6)):
                r = rng.random()
                if r < 0.35:
                    parts.append(rng.choice(words.split()))
                elif r < 0.7:
                    parts.append(rng.choice(_RANDOM_ASCII.split()))
                elif page in ("cp1252", "cp1250"):
                    parts.append(rng.choice(_RANDOM_SIGNS))
                else:
                    parts.append(str(rng.randint(1, 99)))
            text = " ".join(parts)
            try:
                data = text.encode(page)
            except UnicodeEncodeError:
                continue
            if data.isascii():
                continue
            decoded = decode(data)
            if decoded is None or doubt(data, decoded[1]):
                out.append(("random", page, "short", "refused", ""))
                continue
            outcome = "right" if decoded[0] == text else "wrong"
            out.append(("random", page, "short", outcome, f"{decoded[0]!r} ({decoded[1]})"))
    return out


def main() -> None:
    verbose = "-v" in sys.argv[1:]
    if "--random" in sys.argv:
        seed = int(sys.argv[sys.argv.index("--random") + 1])
        counts = Counter(outcome for *_, outcome, _ in random_rows(seed))
        print(
            f"seed {seed}: right {counts['right']}, wrong {counts['wrong']}, refused {counts['refused']}"
        )
        return
    table: Counter[tuple[str, str]] = Counter()
    for language, page, size, outcome, read in rows():
        table[(size, outcome)] += 1
        table[("all", outcome)] += 1
        if verbose and outcome != "right":
            print(f"  {outcome}: {language} {page} {size}: {read}")
    print("| texts | right | wrong | refused |\n|---|---|---|---|")
    for size in ("short", "long", "all"):
        cells = [table[(size, o)] for o in ("right", "wrong", "refused")]
        print(f"| {size} ({sum(cells)}) | {' | '.join(map(str, cells))} |")


if __name__ == "__main__":
    main()
